import { EventEmitter2 } from '@nestjs/event-emitter';
import { InvoiceIdentity } from '../../src/core/invoice-identity';
import type { Invoice } from '../../src/gateway/types';
import type { InvoiceRecord } from '../../src/persistence/invoice.entity';

const record = {
  id: 'rec-1',
  orderId: 'order-1',
  referrer: 'shop:order-1-1',
  gatewayId: 'N1',
  amountCents: 1000,
  creationState: 'created',
} as InvoiceRecord;

const invoice = (over: Partial<Invoice>): Invoice =>
  ({
    id: 'N2',
    uuid: 'u2',
    invoiceId: null,
    referrer: record.referrer,
    status: { code: 1 },
    amounts: { grossCents: 1000 },
    ...over,
  }) as unknown as Invoice;

describe('InvoiceIdentity', () => {
  const findInvoiceByReferrer = jest.fn(async () => null);
  const identity = () => new InvoiceIdentity({ findInvoiceByReferrer }, new EventEmitter2());

  it("by number: an invoice found by its invoice_id, without a referrer, is not the record's", async () => {
    // `findInvoiceById(record.gatewayId)` also answers an invoice whose `invoice_id` is that number.
    const other = invoice({ id: 'N2', invoiceId: 'N1', referrer: null });
    expect(await identity().whyNotOurs(other, record, 'number')).toContain('the record holds invoice N1');
    expect(await identity().whyNotOurs(invoice({ id: 'N1', referrer: null }), record, 'number')).toBeNull();
  });
});
