import { getStates } from '@brazilian-utils/brazilian-utils';
import { Type } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsIP,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_PAGE_SIZE } from '../constants';
import { MoneyFormatError, multiplyCents, sumCents } from '../money';
import type {
  CreateInvoiceParams,
  InvoiceAddress,
  ListInvoicesParams,
  PaymentMethod,
  RefundParams,
  TrackingParams,
} from '../types';
import {
  addFieldError,
  FieldErrors,
  IsAlpha3Country,
  IsCalendarDay,
  IsCardExpiry,
  IsCents,
  IsHttpUrl,
  IsPositiveCents,
  IsPositiveInteger,
  IsRequiredText,
  IsTaxDocument,
} from './validators';

/** The input of each client call, validated before anything is sent (messages never repeat the value). */

/** A customer is international when the address names a country other than Brazil (A4). */
function isInternational(client: { address?: { country?: unknown } }): boolean {
  const country = client.address?.country;
  return country !== undefined && country !== null && country !== 'BRA';
}

export class AddressDto implements InvoiceAddress {
  @IsRequiredText() street!: string;
  @IsRequiredText() number!: string;
  @IsRequiredText() district!: string;
  @IsRequiredText() city!: string;
  @Matches(/^[A-Z]{2}$/, { message: 'must be a two-letter state code' }) state!: string;
  @Matches(/^\d{1,10}$/, { message: 'must be digits only' }) zipcode!: string;
  @IsAlpha3Country() country!: string;
}

export class ClientDto {
  @IsOptional() @IsString() name?: string;

  @ValidateIf((o: ClientDto) => !isInternational(o))
  @IsDefined({ message: 'is required for domestic customers (A4)' })
  @IsTaxDocument()
  document?: string;

  @ValidateIf((o: ClientDto) => isInternational(o) || o.email !== undefined)
  @IsDefined({ message: 'is required for international customers (A4)' })
  @IsEmail({}, { message: 'must be an e-mail address' })
  email?: string;

  @IsOptional() @IsString() phone?: string;
  @IsOptional() @ValidateNested() @Type(() => AddressDto) address?: AddressDto;
  @IsOptional() @IsIP(undefined, { message: 'must be an IPv4 or IPv6 address' }) ip?: string;
}

export class EcommerceDto {
  @IsInt({ message: 'must be an integer' }) storeId!: number;
  @IsInt({ message: 'must be an integer' }) checkout!: number;
}

export class ProductDto {
  @IsRequiredText() id!: string;
  @IsOptional() @IsHttpUrl() image?: string;
  @IsRequiredText() title!: string;
  @IsPositiveInteger() quantity!: number;
  @IsCents() discountCents!: number;
  @IsCents() unitAmountCents!: number;
}

export class CardDto {
  @IsRequiredText() token!: string;
  @IsCardExpiry() valid!: string;
  @IsRequiredText() holderName!: string;
}

export class PaymentDto {
  @IsIn(['pix', 'billet', 'card'], { message: 'must be pix, billet or card' }) method!: PaymentMethod;
  @IsBoolean({ message: 'must be true or false' }) physical!: boolean;
  @IsRequiredText() id!: string;
  @IsRequiredText() referrer!: string;
  @IsOptional() @IsCalendarDay() dueAt?: string;
  @IsOptional() @IsPositiveInteger() installments?: number;
  @IsOptional() @IsHttpUrl() orderUrl?: string;
  @IsOptional() @IsHttpUrl() storeUrl?: string;
  @IsOptional() @IsHttpUrl() webhook?: string;
  @IsOptional() @IsCents() discountCents?: number;

  @IsArray({ message: 'must be a list of products' })
  @ArrayNotEmpty({ message: 'must hold at least one product' })
  @ValidateNested({ each: true })
  @Type(() => ProductDto)
  products!: ProductDto[];

  @ValidateIf((o: PaymentDto) => o.method === 'card' || o.card !== undefined)
  @IsDefined({ message: 'is required for card payments' })
  @ValidateNested()
  @Type(() => CardDto)
  card?: CardDto;
}

/** `createInvoice` input (§4.2 with money in cents). */
export class CreateInvoiceDto implements CreateInvoiceParams {
  @IsDefined({ message: 'is required' }) @ValidateNested() @Type(() => ClientDto) client!: ClientDto;
  @IsOptional() @ValidateNested() @Type(() => EcommerceDto) ecommerce?: EcommerceDto;
  @IsDefined({ message: 'is required' }) @ValidateNested() @Type(() => PaymentDto) payment!: PaymentDto;
  @IsOptional() @IsCents() shippingCents?: number;
}

const UF_CODES: ReadonlySet<string> = new Set<string>(getStates().map((s) => s.code));

/** Rules spanning several fields, checked once every field is well formed. */
export function createInvoiceRules(dto: CreateInvoiceDto): FieldErrors {
  const errors: FieldErrors = {};
  const { client, payment } = dto;
  if (payment.physical && !client.address) {
    addFieldError(errors, 'client.address', 'is required when a product is physical (§4.2)');
  }
  if (client.address?.country === 'BRA') {
    if (!UF_CODES.has(client.address.state))
      addFieldError(errors, 'client.address.state', 'must be a Brazilian state (UF)');
    if (!/^\d{8}$/.test(client.address.zipcode))
      addFieldError(errors, 'client.address.zipcode', 'must be a CEP of 8 digits');
  }
  try {
    const lines = payment.products.map((p, i) => {
      const line = multiplyCents(p.unitAmountCents, p.quantity);
      if (p.discountCents > line) {
        addFieldError(
          errors,
          `payment.products[${i}].discountCents`,
          'must not exceed the line total (price × quantity)',
        );
      }
      return line - Math.min(p.discountCents, line);
    });
    if ((payment.discountCents ?? 0) > sumCents(lines)) {
      addFieldError(
        errors,
        'payment.discountCents',
        'must not exceed the products total after line discounts',
      );
    }
  } catch (err) {
    if (!(err instanceof MoneyFormatError)) throw err;
    addFieldError(errors, 'payment.products', 'total is too large');
  }
  return errors;
}

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
