import { Column, Entity, PrimaryColumn, VersionColumn } from 'typeorm';
import type { OrderPaymentStatus } from '../../src/index';

/** One line of an order, priced from the catalog when the order was placed. */
export interface OrderItem {
  id: string;
  product_id: string;
  title: string;
  thumbnail: string | null;
  quantity: number;
  /** Unit price in cents. */
  unit_price: number;
  /** Physical goods need a shipping address and are shipped with a tracking code. */
  requires_shipping: boolean;
}

/** Who bought it. */
export interface OrderCustomer {
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  /** CPF or CNPJ. */
  document: string | null;
}

/** A Brazilian-style address: Medusa's fields plus `number` and `district`. */
export interface OrderAddress {
  address_1: string;
  number: string;
  address_2: string | null;
  district: string;
  city: string;
  province: string;
  postal_code: string;
  country_code: string;
}

/** One payment status change the module reported through the order port (newest last). */
export interface OrderPaymentEvent {
  at: string;
  invoice_record_id: string;
  method: 'pix' | 'billet' | 'card';
  /** The service's status code (§3). */
  code: number;
  text: string | null;
  payment_status: OrderPaymentStatus;
  /** What reported it: `webhook`, `operation`, `create`, `sweep`, `provider`. */
  source: string;
  /** Set when the change belongs to an older attempt than the order's current one. */
  stale?: boolean;
  alert?: string;
}

/** Medusa's order statuses the demo uses. */
export type OrderStatus = 'pending' | 'completed' | 'canceled' | 'requires_action';
/** Medusa's fulfillment statuses the demo uses. */
export type FulfillmentStatus = 'not_fulfilled' | 'shipped';

/**
 * Cents are BIGINT: PostgreSQL hands BIGINT back as a string, so read it back into a number, refusing anything that
 * is not a safe integer rather than lose a cent.
 */
const cents = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return value;
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new Error(`stored cents out of range: ${String(value)}`);
    return n;
  },
};

/**
 * JSON kept in a TEXT column: the same migration then works on SQLite and PostgreSQL. Only whole values are
 * written, never queried inside.
 */
const json = {
  to: (value: unknown) => (value === undefined ? undefined : JSON.stringify(value)),
  from: (value: string | null) =>
    value === null || value === undefined ? null : (JSON.parse(value) as unknown),
};

/** The demo store's order: what a Medusa-style backend keeps, reduced to what the payment flow needs. */
@Entity('demo_store_order')
export class DemoOrder {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  /** The number a customer sees (`#1001`); unique. */
  @Column({ name: 'display_id', type: 'integer', unique: true })
  displayId!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: OrderStatus;

  @Column({ name: 'payment_status', type: 'varchar', length: 24 })
  paymentStatus!: OrderPaymentStatus;

  @Column({ name: 'fulfillment_status', type: 'varchar', length: 24 })
  fulfillmentStatus!: FulfillmentStatus;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode!: string;

  @Column({ type: 'text', transformer: json })
  items!: OrderItem[];

  @Column({ type: 'text', transformer: json })
  customer!: OrderCustomer;

  @Column({ name: 'shipping_address', type: 'text', nullable: true, transformer: json })
  shippingAddress!: OrderAddress | null;

  @Column({ name: 'billing_address', type: 'text', nullable: true, transformer: json })
  billingAddress!: OrderAddress | null;

  @Column({ type: 'bigint', transformer: cents })
  subtotal!: number;

  @Column({ name: 'shipping_total', type: 'bigint', transformer: cents })
  shippingTotal!: number;

  @Column({ name: 'discount_total', type: 'bigint', transformer: cents })
  discountTotal!: number;

  @Column({ type: 'bigint', transformer: cents })
  total!: number;

  @Column({ name: 'refunded_total', type: 'bigint', transformer: cents })
  refundedTotal!: number;

  /** Method of the current payment attempt. */
  @Column({ name: 'payment_method', type: 'varchar', length: 16, nullable: true })
  paymentMethod!: 'pix' | 'billet' | 'card' | null;

  /** The module's invoice record of the current attempt (the payment session id). */
  @Column({ name: 'invoice_record_id', type: 'varchar', length: 36, nullable: true })
  invoiceRecordId!: string | null;

  /** Every status change the module reported, oldest first. */
  @Column({ name: 'payment_events', type: 'text', transformer: json })
  paymentEvents!: OrderPaymentEvent[];

  @Column({ name: 'tracking_code', type: 'varchar', length: 64, nullable: true })
  trackingCode!: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  carrier!: string | null;

  @Column({ name: 'tracking_url', type: 'text', nullable: true })
  trackingUrl!: string | null;

  /** ISO-8601 text, as the module stores time: portable and sortable. */
  @Column({ name: 'shipped_at', type: 'varchar', length: 32, nullable: true })
  shippedAt!: string | null;

  @Column({ name: 'canceled_at', type: 'varchar', length: 32, nullable: true })
  canceledAt!: string | null;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt!: string;

  @Column({ name: 'updated_at', type: 'varchar', length: 32 })
  updatedAt!: string;

  /** Optimistic lock: the order port and the admin may write the same order at once. */
  @VersionColumn()
  version!: number;
}
