import { ManualClock } from '../../test/support/clock';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { DeliveryConfirmation } from './delivery-confirmation';
import { LookupPacer } from './lookup-pacer';
import { WebhookInboxEntry } from './webhook-inbox.entity';

/**
 * Deliveries naming an invoice the service knows but this store has no record of (another system's invoice on the
 * same account): one lookup, then every further delivery waits for a record without asking again.
 */
describe('DeliveryConfirmation of an invoice without a record here', () => {
  const INVOICE = { id: 'foreign-1', referrer: null } as unknown as Invoice;
  let lookups: number;
  let confirmation: DeliveryConfirmation;

  const entry = (id: string) =>
    Object.assign(new WebhookInboxEntry(), { id, referrer: null, waitingFor: null, receivedAt: new Date() });

  beforeEach(() => {
    lookups = 0;
    const gateway = {
      findInvoiceById: () => {
        lookups++;
        return Promise.resolve(INVOICE);
      },
    } as unknown as GatewayClient;
    const options = {
      lookupWindowMs: 1000,
      lookupsPerSecond: 100,
      inbox: { unknownInvoiceWindowMs: 60_000, unknownLookupsPerWindow: 100, unknownLookupWindowMs: 60_000 },
    } as ResolvedWebhooksOptions;
    const clock = new ManualClock();
    confirmation = new DeliveryConfirmation(gateway, new LookupPacer(options, clock), clock);
  });

  it('remembers the answer as soon as the service gives it, before the caller looks for a record', async () => {
    const first = await confirmation.confirm([entry('e1')], INVOICE.id, false);
    expect(first).toMatchObject({ kind: 'confirmed', invoice: INVOICE });
    // The first delivery's processing has not looked for a record yet; a second delivery is taken meanwhile.
    expect(await confirmation.confirm([entry('e2')], INVOICE.id, false)).toEqual({ kind: 'wait-for-record' });
    expect(lookups).toBe(1);
  });

  it('waits for a record without asking when the entry says it waits for one (another process asked)', async () => {
    const waiting = Object.assign(entry('e1'), { waitingFor: 'record' as const });
    expect(await confirmation.confirm([waiting], INVOICE.id, false)).toEqual({ kind: 'wait-for-record' });
    expect(lookups).toBe(0);
  });

  it('does not remember an invoice this store had a record of when taken', async () => {
    await confirmation.confirm([entry('e1')], INVOICE.id, true);
    expect(await confirmation.confirm([entry('e2')], INVOICE.id, false)).toMatchObject({ kind: 'confirmed' });
    expect(lookups).toBe(2);
  });
});
