import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';

/** Writes an InvoiceRecord the way the checkout would after creating its invoice (status still unknown). */
export async function insertInvoiceRecord(
  ds: DataSource,
  overrides: Partial<InvoiceRecord> = {},
): Promise<InvoiceRecord> {
  const id = overrides.id ?? randomUUID();
  const orderId = overrides.orderId ?? `order-${id.slice(0, 8)}`;
  const now = new Date();
  const record = ds.getRepository(InvoiceRecord).create({
    id,
    orderId,
    openOrderId: orderId,
    attempt: 1,
    referrer: `ref-${id}`,
    creationState: 'created',
    method: 'pix',
    gatewayId: `gw-${id}`,
    gatewayUuid: null,
    gatewayInvoiceId: null,
    statusCode: null,
    statusText: null,
    currency: 'BRL',
    amountCents: 10_050,
    grossCents: null,
    netCents: null,
    feesCents: null,
    discountCents: null,
    shippingCents: null,
    paidCents: null,
    refundedCents: 0,
    amountMismatch: false,
    pixPayload: null,
    pixImage: null,
    billetLine: null,
    billetBarcode: null,
    billetUrl: null,
    paymentUrl: null,
    dueDate: null,
    installments: 1,
    cardBrand: null,
    cardLast4: null,
    failureReason: null,
    rawSnapshot: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
  await ds.getRepository(InvoiceRecord).insert(record);
  return record;
}
