import { Transform, Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsTimeZone,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import type { PaymentMethod } from '../gateway/types';
import { PAYMENT_METHODS, SETTING_LIST, type SettingDeclaration } from '../options/settings.schema';
import type { SettingsUpdate } from './settings.mapping';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../domain/text-bounds';

/** `name`: the constraint the admin API's codes know it by. */
function rule(name: string, message: string, validate: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    ValidateBy({ name, validator: { validate, defaultMessage: () => message } }, options);
}

export const IsCalendarDate = rule(
  'isCalendarDate',
  '$property must be a calendar day written YYYY-MM-DD',
  (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  },
);

export const IsIsoInstant = rule(
  'isIsoInstant',
  '$property must be an ISO-8601 instant such as 2026-11-23T03:00:00Z',
  (value) =>
    typeof value === 'string' &&
    value.length <= 40 &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
);

function isHttpUrl(value: unknown, template: boolean): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  const text = template ? value.replace(/\{(order_id|display_id|reference)\}/g, 'x') : value;
  if (/[{}]/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** An http(s) URL (loopback hosts too: stores test against them); `template`: with the checkout's placeholders. */
export function IsHttpUrl(options?: ValidationOptions & { template?: boolean }): PropertyDecorator {
  const template = options?.template === true;
  const message = template
    ? '$property must be an http or https URL (placeholders {order_id}, {display_id}, {reference})'
    : '$property must be an http or https URL';
  return rule('isHttpUrl', message, (v) => isHttpUrl(v, template))(options);
}

/** A whole number from `min` to `max`. */
export function IsIntIn(min: number, max: number): PropertyDecorator {
  const atLeast = min === 0 ? '$property must be 0 or more' : `$property must be at least ${min}`;
  return (target, key) => {
    // Bottom up, as stacked decorators register: the first problem of the 400 is the type's.
    Max(max, { message: `$property must be at most ${max}` })(target, key);
    Min(min, { message: atLeast })(target, key);
    IsInt({ message: '$property must be an integer' })(target, key);
  };
}

/** A string free of control characters; other types pass here. */
export const IsPlainText = rule(
  'isPlainText',
  `$property ${CONTROL_CHARACTERS_PROBLEM}`,
  (value) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
);

/** `IsIn(values)` whose message lists them: "$property must be a, b or c". */
function IsOneOf(values: readonly string[]): PropertyDecorator {
  return IsIn(values, { message: `$property must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}` });
}

/** The `ecommerce` columns are 32-bit `integer`s on PostgreSQL. */
const MAX_ECOMMERCE_ID = 2_147_483_647;

export class EcommerceDto {
  @IsIntIn(1, MAX_ECOMMERCE_ID)
  storeId!: number;

  @IsIntIn(1, MAX_ECOMMERCE_ID)
  checkout!: number;
}

/** Body of `PUT /settings`: an absent field is left as it is, `null` resets it to the module options' default. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- checked per setting below
export interface UpdateSettingsDto extends SettingsUpdate {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateSettingsDto {}

/** What a kind leaves to the setting: a secret's length and characters. */
const SECRETS: Record<string, [max: number, allowed: RegExp, refused: string]> = {
  // A bearer token has no white space (RFC 6750 b64token); a line break would also split the header.
  accessToken: [2048, /^\S+$/, 'spaces'],
  webhookToken: [256, /^[^\s:]+$/, 'spaces or ":" (the token separator)'],
};

type Checks = (name: string, declaration: SettingDeclaration<unknown>) => PropertyDecorator[];

/** The checks of each kind of setting, top first as if stacked on the property. */
const CHECKS: Record<SettingDeclaration<unknown>['kind'], Checks> = {
  mode: () => [IsOneOf(['sandbox', 'production'])],
  secret: (name) => {
    const [max, allowed, refused] = SECRETS[name];
    return [
      IsString({ message: `${name} must be a string` }),
      IsPlainText(),
      Length(1, max, { message: `${name} must be 1 to ${max} characters` }),
      Matches(allowed, { message: `${name} must not contain ${refused}` }),
    ];
  },
  methods: (name) => [
    IsArray({ message: `${name} must be a list of pix, billet, card` }),
    ArrayMinSize(1, { message: `${name} must name at least one method` }),
    ArrayUnique({ message: `${name} must not repeat a method` }),
    IsIn(PAYMENT_METHODS, { each: true, message: `${name} may only hold pix, billet, card` }),
  ],
  int: (_, { min, max }) => [IsIntIn(min ?? 0, max ?? Number.MAX_SAFE_INTEGER)],
  url: () => [IsHttpUrl()],
  text: (name) => [
    name === 'timeZone'
      ? IsTimeZone({ message: '$property must be an IANA time zone such as America/Sao_Paulo' })
      : IsHttpUrl({ template: true }),
  ],
  ecommerce: () => [ValidateNested(), Type(() => EcommerceDto)],
  // Checked part by part by `checkWireProfileData`.
  json: (name) => [IsObject({ message: `${name} must be an object (wire-profile overrides) or null` })],
};

for (const [name, declaration] of SETTING_LIST) {
  const checks = [IsOptional(), ...CHECKS[declaration.kind](name, declaration)];
  // Bottom up, as stacked decorators register.
  for (const check of checks.reverse()) check(UpdateSettingsDto.prototype, name);
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

export class InboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsOneOf(['pending', 'dead', 'processed', 'ignored'])
  state?: 'pending' | 'dead' | 'processed' | 'ignored';
}

export class OutboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsOneOf(['pending', 'sent', 'failed', 'superseded'])
  status?: 'pending' | 'sent' | 'failed' | 'superseded';
}

export class AlertsQueryDto extends PageQueryDto {
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'open must be true or false' })
  open?: boolean;

  @IsOptional()
  @Matches(/^[a-z_]{1,32}$/, { message: 'kind must be an alert kind such as amount_mismatch' })
  kind?: string;
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
  @IsOneOf(PAYMENT_METHODS)
  method?: PaymentMethod;

  @IsOptional()
  @IsOneOf(['pending', 'unknown', 'created', 'failed'])
  creationState?: 'pending' | 'unknown' | 'created' | 'failed';

  @IsOptional()
  @IsIsoInstant()
  createdFrom?: string;

  @IsOptional()
  @IsIsoInstant()
  createdBefore?: string;

  /** Any case: the start of the order id or number, invoice number, e-mail, or a word of the customer's name. */
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
