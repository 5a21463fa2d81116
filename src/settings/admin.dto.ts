import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { PaymentMethod } from '../gateway/types';
import {
  PAYMENT_METHODS,
  SETTING_LIST,
  type InvoicePaymentsMode,
  type InvoicePaymentsSettingsValues,
  type SettingName,
} from '../core/settings.schema';
import { IsCalendarDate, IsHttpUrl, IsIntIn, IsIsoInstant, IsPlainText, IsTimeZone } from './validation';

/** The `ecommerce` columns are 32-bit `integer`s on PostgreSQL. */
const MAX_ECOMMERCE_ID = 2_147_483_647;

export class EcommerceDto {
  @IsIntIn(1, MAX_ECOMMERCE_ID)
  storeId!: number;

  @IsIntIn(1, MAX_ECOMMERCE_ID)
  checkout!: number;
}

type IntSettings = {
  [K in SettingName as InvoicePaymentsSettingsValues[K] extends number ? K : never]?: number | null;
};

/** Body of `PUT /settings`: an absent field is left as it is, `null` resets it to the module options' default. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the int settings' checks are added below
export interface UpdateSettingsDto extends IntSettings {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateSettingsDto {
  @IsOptional()
  @IsHttpUrl()
  baseUrl?: string | null;

  @IsOptional()
  @IsString({ message: 'accessToken must be a string' })
  @IsPlainText()
  @Length(1, 2048, { message: 'accessToken must be 1 to 2048 characters' })
  // A bearer token has no white space (RFC 6750 b64token); a line break would also split the header.
  @Matches(/^\S+$/, { message: 'accessToken must not contain spaces' })
  accessToken?: string | null;

  @IsOptional()
  @IsString({ message: 'webhookToken must be a string' })
  @IsPlainText()
  @Length(1, 256, { message: 'webhookToken must be 1 to 256 characters' })
  @Matches(/^[^\s:]+$/, { message: 'webhookToken must not contain spaces or ":" (the token separator)' })
  webhookToken?: string | null;

  @IsOptional()
  @IsIn(['sandbox', 'production'], { message: 'mode must be sandbox or production' })
  mode?: InvoicePaymentsMode | null;

  @IsOptional()
  @ValidateNested()
  @Type(() => EcommerceDto)
  ecommerce?: EcommerceDto | null;

  @IsOptional()
  @IsArray({ message: 'enabledMethods must be a list of pix, billet, card' })
  @ArrayMinSize(1, { message: 'enabledMethods must name at least one method' })
  @ArrayUnique({ message: 'enabledMethods must not repeat a method' })
  @IsIn(PAYMENT_METHODS, { each: true, message: 'enabledMethods may only hold pix, billet, card' })
  enabledMethods?: PaymentMethod[] | null;

  @IsOptional()
  @IsHttpUrl()
  publicWebhookUrl?: string | null;

  @IsOptional()
  @IsHttpUrl({ template: true })
  orderUrlTemplate?: string | null;

  @IsOptional()
  @IsHttpUrl({ template: true })
  storeUrlTemplate?: string | null;

  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  /** Checked part by part by `checkWireProfileData`. */
  @IsOptional()
  @IsObject({ message: 'wireProfile must be an object (wire-profile overrides) or null' })
  wireProfile?: Record<string, unknown> | null;
}

// The whole-number settings are checked as declared.
for (const [name, declaration] of SETTING_LIST) {
  if (declaration.kind !== 'int') continue;
  IsIntIn(declaration.min ?? 0, declaration.max ?? Number.MAX_SAFE_INTEGER)(
    UpdateSettingsDto.prototype,
    name,
  );
  IsOptional()(UpdateSettingsDto.prototype, name);
}

export class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsIntIn(1, 1_000_000)
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsIntIn(1, 100)
  limit?: number;
}

export class ListInvoicesQueryDto extends PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'status must be a status code (integer)' })
  @Min(0, { message: 'status must be a status code from 0 to 999' })
  @Max(999, { message: 'status must be a status code from 0 to 999' })
  status?: number;

  @IsOptional()
  @IsString({ message: 'orderId must be a string' })
  @MaxLength(128, { message: 'orderId must be at most 128 characters' })
  @IsPlainText()
  orderId?: string;

  @IsOptional()
  @IsIn(PAYMENT_METHODS, { message: 'method must be pix, billet or card' })
  method?: PaymentMethod;

  @IsOptional()
  @IsIn(['pending', 'unknown', 'created', 'failed'], {
    message: 'creationState must be pending, unknown, created or failed',
  })
  creationState?: 'pending' | 'unknown' | 'created' | 'failed';

  @IsOptional()
  @IsIsoInstant()
  createdFrom?: string;

  @IsOptional()
  @IsIsoInstant()
  createdBefore?: string;

  @IsOptional()
  @IsString({ message: 'q must be a string' })
  @MaxLength(100, { message: 'q must be at most 100 characters' })
  @IsPlainText()
  q?: string;

  @IsOptional()
  @IsString({ message: 'cursor must be a nextCursor this list gave' })
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a nextCursor this list gave' })
  cursor?: string;
}

export class ChangeDueDateDto {
  @IsCalendarDate()
  dueDate!: string;
}

export class RefundDto {
  @IsInt({ message: 'amountCents must be an integer number of cents' })
  @Min(1, { message: 'amountCents must be at least 1' })
  @Max(99_999_999_999, { message: 'amountCents must be at most 99999999999' })
  amountCents!: number;

  /** The same key never refunds twice; without one, the same amount within `refunds.repeatWindowMs` is a repeat. */
  @IsOptional()
  @IsString({ message: 'idempotencyKey must be a string' })
  @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'idempotencyKey must be 1 to 128 printable characters' })
  idempotencyKey?: string;

  @IsOptional()
  @IsString({ message: 'actor must be a string naming who asks' })
  @Length(1, 100, { message: 'actor must be 1 to 100 characters' })
  @Matches(/\S/, { message: 'actor must not be blank' })
  actor?: string;
}

export class MarkNotCreatedDto {
  @IsString({ message: 'actor must be a string naming who checked the service' })
  @IsPlainText()
  @Length(1, 128, { message: 'actor must be 1 to 128 characters' })
  @Matches(/\S/, { message: 'actor must not be blank' })
  actor!: string;

  @IsOptional()
  @IsString({ message: 'note must be a string' })
  @IsPlainText()
  @MaxLength(200, { message: 'note must be at most 200 characters' })
  note?: string;
}

export class ResendWebhookDto {
  @IsHttpUrl()
  url!: string;

  @IsOptional()
  @IsString({ message: 'events must be an event name such as invoice.update' })
  @Matches(/^[a-z_]+(\.[a-z_]+)+$/, { message: 'events must be an event name such as invoice.update' })
  events?: string;

  @IsOptional()
  @IsString({ message: 'webhook must be a webhook identifier' })
  @IsPlainText()
  @Length(1, 128, { message: 'webhook must be 1 to 128 characters' })
  webhook?: string;
}
