import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_PAGE_SIZE } from '../constants';
import type { ListInvoicesParams } from '../types';
import { addFieldError, FieldErrors } from './validate';
import { IsCalendarDay, IsPositiveInteger, IsRequiredText } from './validators';

/** `page` and `limit` of every list operation. */
export class PageQueryDto {
  @IsOptional() @IsPositiveInteger() page?: number;

  @IsOptional()
  @IsInt({ message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Min(1, { message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  limit?: number;
}

/** `listInvoices` filters (A7). */
export class ListInvoicesDto extends PageQueryDto implements ListInvoicesParams {
  @IsOptional() @IsInt({ message: 'must be an integer status code' }) status?: number;
  @IsOptional() @IsRequiredText() referrer?: string;
  @IsOptional() @IsRequiredText() paymentId?: string;
  @IsOptional() @IsCalendarDay() createdFrom?: string;
  @IsOptional() @IsCalendarDay() createdTo?: string;
}

export function listInvoicesRules(dto: ListInvoicesDto): FieldErrors {
  const errors: FieldErrors = {};
  if (dto.createdFrom && dto.createdTo && dto.createdFrom > dto.createdTo) {
    addFieldError(errors, 'createdTo', 'must not be before createdFrom');
  }
  return errors;
}
