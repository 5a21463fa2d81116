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
import { IsCalendarDate, IsHttpUrl, IsIsoInstant, IsPlainText, IsTimeZone } from './validation';

/** Highest `ecommerce` id: the columns are `integer`, 32 bits on PostgreSQL (a larger one was a database error). */
export const MAX_ECOMMERCE_ID = 2_147_483_647;

export class EcommerceDto {
  @IsInt({ message: 'storeId must be an integer' })
  @Min(1, { message: 'storeId must be at least 1' })
  @Max(MAX_ECOMMERCE_ID, { message: `storeId must be at most ${MAX_ECOMMERCE_ID}` })
  storeId!: number;

  @IsInt({ message: 'checkout must be an integer' })
  @Min(1, { message: 'checkout must be at least 1' })
  @Max(MAX_ECOMMERCE_ID, { message: `checkout must be at most ${MAX_ECOMMERCE_ID}` })
  checkout!: number;
}

/** The whole-number settings, typed as the settings declare them. */
type IntSettings = {
  [K in SettingName as InvoicePaymentsSettingsValues[K] extends number ? K : never]?: number | null;
};

/**
 * Body of `PUT /settings`. Every field is optional: an absent field is left as it is, `null` resets it to the
 * module options' default.
 */
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
  @IsHttpUrl({
    template: true,
    message:
      'orderUrlTemplate must be an http or https URL (placeholders {order_id}, {display_id}, {reference})',
  })
  orderUrlTemplate?: string | null;

  @IsOptional()
  @IsHttpUrl({
    template: true,
    message:
      'storeUrlTemplate must be an http or https URL (placeholders {order_id}, {display_id}, {reference})',
  })
  storeUrlTemplate?: string | null;

  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  /** Checked part by part by `checkWireProfileData` (400 naming e.g. `wireProfile.list.items.invoices`). */
  @IsOptional()
  @IsObject({ message: 'wireProfile must be an object (wire-profile overrides) or null' })
  wireProfile?: Record<string, unknown> | null;
}

// The whole-number settings are checked as declared (the module options are checked against the same bounds).
for (const [name, declaration] of SETTING_LIST) {
  if (declaration.kind !== 'int') continue;
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = declaration;
  const target = UpdateSettingsDto.prototype;
  // Registered bottom up, as stacked decorators are, so these errors list like the other fields'.
  Max(max, { message: `${name} must be at most ${max}` })(target, name);
  Min(min, { message: min === 0 ? `${name} must be 0 or more` : `${name} must be at least ${min}` })(
    target,
    name,
  );
  IsInt({ message: `${name} must be an integer` })(target, name);
  IsOptional()(target, name);
}

/** `page` and `limit` of the admin lists: page from 1, at most 100 items a page. */
export class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be an integer' })
  @Min(1, { message: 'page must be at least 1' })
  @Max(1_000_000, { message: 'page must be at most 1000000' })
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(100, { message: 'limit must be at most 100' })
  limit?: number;
}

/** Query of `GET /invoices`. */
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

  /** `unknown` lists the unresolved creations: the service may or may not have the invoice. */
  @IsOptional()
  @IsIn(['pending', 'unknown', 'created', 'failed'], {
    message: 'creationState must be pending, unknown, created or failed',
  })
  creationState?: 'pending' | 'unknown' | 'created' | 'failed';

  /** Created at or after this instant (ISO-8601, e.g. the store's local midnight). */
  @IsOptional()
  @IsIsoInstant()
  createdFrom?: string;

  /** Created before this instant (ISO-8601). */
  @IsOptional()
  @IsIsoInstant()
  createdBefore?: string;

  /**
   * The start of the order id or number, the invoice number or the e-mail, or of the customer's name or a word in
   * it (any case).
   */
  @IsOptional()
  @IsString({ message: 'q must be a string' })
  @MaxLength(100, { message: 'q must be at most 100 characters' })
  @IsPlainText()
  q?: string;

  /** The previous page's `nextCursor`: continues the list after it (a keyset read, instead of `page`). */
  @IsOptional()
  @IsString({ message: 'cursor must be a nextCursor this list gave' })
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a nextCursor this list gave' })
  cursor?: string;
}

/** Body of `POST /invoices/:id/due-date`. */
export class ChangeDueDateDto {
  @IsCalendarDate({ message: 'dueDate must be a calendar day written YYYY-MM-DD' })
  dueDate!: string;
}

/** Body of `POST /invoices/:id/refund`. */
export class RefundDto {
  @IsInt({ message: 'amountCents must be an integer number of cents' })
  @Min(1, { message: 'amountCents must be at least 1' })
  @Max(99_999_999_999, { message: 'amountCents must be at most 99999999999' })
  amountCents!: number;

  /**
   * Names this refund: sent again with the same key (a retry, a double click, a second tab) it never refunds twice
   * and answers the first one's result. The admin page sends one per confirmed dialog. Without it, the same amount
   * of the same invoice within `refunds.repeatWindowMs` is the same refund.
   */
  @IsOptional()
  @IsString({ message: 'idempotencyKey must be a string' })
  @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'idempotencyKey must be 1 to 128 printable characters' })
  idempotencyKey?: string;

  /** Who asks, kept on the refund's ledger row (default `admin`). */
  @IsOptional()
  @IsString({ message: 'actor must be a string naming who asks' })
  @Length(1, 100, { message: 'actor must be 1 to 100 characters' })
  @Matches(/\S/, { message: 'actor must not be blank' })
  actor?: string;
}

/**
 * Body of `POST /invoices/:id/mark-not-created`: who checked the service's panel and found no invoice for the
 * attempt. Recorded in the status history with the time.
 */
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

/** Body of `POST /webhooks/resend` (spec §4.8): refused in production mode. */
export class ResendWebhookDto {
  @IsHttpUrl({ message: 'url must be an http or https URL' })
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
