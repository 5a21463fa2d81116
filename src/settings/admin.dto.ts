import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_SERVICE_AMOUNT_CENTS } from '../gateway/money';
import type { PaymentMethod } from '../gateway/types';
import { PAYMENT_METHODS } from '../options/settings.schema';
import { IsCalendarDate, IsHttpUrl, IsIntIn, IsIsoInstant, IsOneOf, IsPlainText } from './admin-validators';

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
  @Max(MAX_SERVICE_AMOUNT_CENTS, { message: `amountCents must be at most ${MAX_SERVICE_AMOUNT_CENTS}` })
  amountCents!: number;

  /** The same key never refunds twice; without one, the same amount within `refunds.repeatWindowMs` is a repeat. */
  @IsOptional()
  @IsString({ message: 'idempotencyKey must be a string' })
  @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'idempotencyKey must be 1 to 128 printable characters' })
  idempotencyKey?: string;

  @IsOptional()
  @IsString({ message: 'actor must be a string naming who asks' })
  @IsPlainText()
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
