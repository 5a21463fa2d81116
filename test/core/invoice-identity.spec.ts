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

  it('by referrer: an invoice the service did not list is asked about again, and alerted once', async () => {
    const fresh = { ...record, gatewayId: null } as InvoiceRecord;
    const listed = invoice({ id: 'N3' });
    const list = jest.fn().mockResolvedValueOnce(null).mockResolvedValueOnce(listed);
    const events = new EventEmitter2();
    const alerts: unknown[] = [];
    events.on('invoice-payments.alert', (alert: unknown) => alerts.push(alert));
    const checker = new InvoiceIdentity({ findInvoiceByReferrer: list }, events);
    expect(await checker.whyNotOurs(listed, fresh, 'referrer')).toContain('does not list it');
    // The list caught up: the same invoice is the record's now.
    expect(await checker.whyNotOurs(listed, fresh, 'referrer')).toBeNull();
    expect(list).toHaveBeenCalledTimes(2);
    expect(alerts).toHaveLength(1);
  });

  it("by referrer: a verdict of the invoice's own fields is kept, the service not asked again", async () => {
    const fresh = { ...record, gatewayId: null } as InvoiceRecord;
    const list = jest.fn(async () => null);
    const checker = new InvoiceIdentity({ findInvoiceByReferrer: list }, new EventEmitter2());
    const dearer = invoice({ id: 'N4', amounts: { grossCents: 2000 } } as Partial<Invoice>);
    expect(await checker.whyNotOurs(dearer, fresh, 'referrer')).toContain('its amount');
    expect(await checker.whyNotOurs(dearer, fresh, 'referrer')).toContain('its amount');
    expect(list).not.toHaveBeenCalled();
  });
});
