import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmptyObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM } from '../../src/domain/text-and-days';
import { CATALOG } from './catalog';

/** The module's one rule for text (no NUL, line breaks, ESC, bidi overrides...), checked when the order is placed. */
function PlainText(): PropertyDecorator {
  return ValidateBy({
    name: 'plainText',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !CONTROL_CHARACTERS.test(value),
      defaultMessage: () => `$property ${CONTROL_CHARACTERS_PROBLEM}`,
    },
  });
}

const PRODUCT_IDS = CATALOG.map((p) => p.id);

export class OrderLineDto {
  @IsIn(PRODUCT_IDS, { message: `product_id must be one of ${PRODUCT_IDS.join(', ')}` })
  product_id!: string;

  @IsInt({ message: 'quantity must be an integer' })
  @Min(1, { message: 'quantity must be at least 1' })
  @Max(99, { message: 'quantity must be at most 99' })
  quantity!: number;
}

export class CustomerDto {
  @PlainText()
  @IsString()
  @Length(1, 80)
  first_name!: string;

  @PlainText()
  @IsString()
  @Length(1, 80)
  last_name!: string;

  @IsOptional()
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email?: string;

  @IsOptional()
  @PlainText()
  @IsString()
  @Length(8, 20)
  phone?: string;

  /** CPF or CNPJ; the payment module checks its digits when the order is paid. */
  @IsOptional()
  @PlainText()
  @IsString()
  @Length(11, 18)
  document?: string;
}

export class AddressDto {
  @PlainText()
  @IsString()
  @Length(1, 120)
  address_1!: string;

  @PlainText()
  @IsString()
  @Length(1, 10)
  number!: string;

  @IsOptional()
  @PlainText()
  @IsString()
  @Length(0, 120)
  address_2?: string;

  @PlainText()
  @IsString()
  @Length(1, 80)
  district!: string;

  @PlainText()
  @IsString()
  @Length(1, 80)
  city!: string;

  @Matches(/^[A-Za-z]{2}$/, { message: 'province must be a two-letter state (UF), e.g. SP' })
  province!: string;

  @Matches(/^\d{5}-?\d{3}$/, { message: 'postal_code must be a CEP, e.g. 01310-100' })
  postal_code!: string;

  @Matches(/^[A-Za-z]{2}$/, { message: 'country_code must be a two-letter country code, e.g. br' })
  country_code!: string;
}

/** Body of `POST /store/orders`: products and quantities, never prices (those come from the catalog). */
export class CreateOrderDto {
  @ArrayMinSize(1, { message: 'items must hold at least one line' })
  @ArrayMaxSize(20, { message: 'items must hold at most 20 lines' })
  @ValidateNested({ each: true })
  @Type(() => OrderLineDto)
  items!: OrderLineDto[];

  @IsNotEmptyObject({}, { message: 'customer is required' })
  @ValidateNested()
  @Type(() => CustomerDto)
  customer!: CustomerDto;

  /** Required when an item is physical. */
  @IsOptional()
  @ValidateNested()
  @Type(() => AddressDto)
  shipping_address?: AddressDto;

  @IsOptional()
  @ValidateNested()
  @Type(() => AddressDto)
  billing_address?: AddressDto;
}

export class CardDto {
  /** Produced by the service's card tokenization script in the browser: the store never sees the card number. */
  @PlainText()
  @IsString()
  @Length(1, 256)
  token!: string;

  @Matches(/^(0[1-9]|1[0-2])\/\d{2}$/, { message: '$property must be MM/YY' })
  expiry!: string;

  @PlainText()
  @IsString()
  @Length(1, 80)
  holder_name!: string;
}

/** Body of `POST /store/orders/:id/payment`. */
export class PayOrderDto {
  @IsIn(['pix', 'billet', 'card'], { message: 'method must be pix, billet or card' })
  method!: 'pix' | 'billet' | 'card';

  @ValidateIf((o: PayOrderDto) => o.method === 'card' || o.card !== undefined)
  @IsNotEmptyObject({}, { message: 'card is required to pay by card' })
  @ValidateNested()
  @Type(() => CardDto)
  card?: CardDto;

  @IsOptional()
  @IsInt({ message: 'installments must be an integer' })
  @Min(1, { message: 'installments must be at least 1' })
  @Max(12, { message: 'installments must be at most 12' })
  installments?: number;
}

/** Body of `POST /admin/orders/:id/ship`. */
export class ShipOrderDto {
  @PlainText()
  @IsString()
  @Matches(/^\S{4,64}$/, { message: 'tracking_code must be 4 to 64 characters without spaces' })
  tracking_code!: string;

  /** Control characters are left to the module's own shipment checks (400 naming the field). */
  @IsOptional()
  @IsString()
  @Length(1, 64)
  carrier?: string;

  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true },
    { message: 'tracking_url must be an http(s) URL' },
  )
  tracking_url?: string;
}

/** Body of `POST /admin/orders/:id/refund`. */
export class RefundOrderDto {
  /** Cents to refund; default: everything paid and not refunded yet. */
  @IsOptional()
  @IsInt({ message: 'amount must be an integer number of cents' })
  @Min(1, { message: 'amount must be at least 1 cent' })
  amount?: number;

  /**
   * Names this refund: the same key repeated (a retry after a lost answer) never refunds twice. Give each refund its
   * own key; without one, a second refund of the same amount within the module's repeat window is refused (409).
   */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'idempotency_key must be 1 to 128 printable characters' })
  idempotency_key?: string;
}
