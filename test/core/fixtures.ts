import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { BLANK } from '../../src/core/attempt-claim';
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
    ...BLANK,
    id,
    orderId,
    openOrderId: orderId,
    attempt: 1,
    referrer: `ref-${id}`,
    creationState: 'created',
    method: 'pix',
    gatewayId: `gw-${id}`,
    currency: 'BRL',
    amountCents: 10_050,
    installments: 1,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  });
  await ds.getRepository(InvoiceRecord).insert(record);
  return record;
}
