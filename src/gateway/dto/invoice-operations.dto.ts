import { IsOptional, IsString } from 'class-validator';
import type { RefundParams, TrackingParams } from '../types';
import { addFieldError, FieldErrors } from './validate';
import { IsCalendarDay, IsCents, IsHttpUrl, IsPositiveCents, IsRequiredText } from './validators';

/** `changeDueDate` input (§4.3). */
export class ChangeDueDateDto {
  @IsRequiredText() invoiceId!: string;
  @IsCalendarDay() dueAt!: string;
}

/** `cancelInvoice` input (§4.4). */
export class CancelInvoiceDto {
  @IsRequiredText() id!: string;
}

/** `refundInvoice` input (A8). */
export class RefundDto implements RefundParams {
  @IsRequiredText() id!: string;
  @IsRequiredText() invoiceId!: string;
  @IsPositiveCents() amountCents!: number;
  @IsOptional() @IsCents() refundableCents?: number;
}

export function refundRules(dto: RefundDto): FieldErrors {
  const errors: FieldErrors = {};
  if (dto.refundableCents !== undefined && dto.amountCents > dto.refundableCents) {
    addFieldError(
      errors,
      'amountCents',
      `must not exceed what remains refundable (${dto.refundableCents} cents)`,
    );
  }
  return errors;
}

/** `addTrackingCode` input (A9). */
export class TrackingDto implements TrackingParams {
  @IsRequiredText() invoiceId!: string;
  @IsRequiredText() code!: string;
  @IsOptional() @IsString() @IsRequiredText() carrier?: string;
  @IsOptional() @IsHttpUrl() url?: string;
}
