import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { DeliveryConfirmation, NO_RECORD_YET } from './delivery-confirmation';
import type { ResolvedWebhooksOptions } from './types';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import type { WebhookInboxService } from './webhook-inbox.service';

/**
 * Deliveries naming an invoice the service knows but this store has no record of (another system's invoice on the
 * same account): one lookup, then every further delivery waits for a record without asking again.
 */
describe('DeliveryConfirmation of an invoice without a record here', () => {
  const INVOICE = { id: 'foreign-1', referrer: null } as unknown as Invoice;
  let lookups: number;
  let postponed: Array<{ id: string; problem: string }>;
  let confirmation: DeliveryConfirmation;

  const entry = (id: string) =>
    Object.assign(new WebhookInboxEntry(), { id, referrer: null, lastError: null, receivedAt: new Date() });

  beforeEach(() => {
    lookups = 0;
    postponed = [];
    const gateway = {
      findInvoiceById: () => {
        lookups++;
        return Promise.resolve(INVOICE);
      },
    } as unknown as GatewayClient;
    const rows = {
      retryLater: (e: WebhookInboxEntry, problem: string) => {
        postponed.push({ id: e.id, problem });
        return Promise.resolve();
      },
    } as unknown as WebhookInboxService;
    const options = {
      inbox: { unknownInvoiceWindowMs: 60_000, unknownLookupsPerWindow: 100, unknownLookupWindowMs: 60_000 },
    } as ResolvedWebhooksOptions;
    confirmation = new DeliveryConfirmation(gateway, options, rows);
  });

  it('remembers the answer as soon as the service gives it, before the caller looks for a record', async () => {
    const first = entry('e1');
    expect(await confirmation.admit(first, INVOICE.id, false)).toBe(true);
    expect((await confirmation.confirm([first], INVOICE.id, false))?.invoice).toBe(INVOICE);
    // The first delivery's processing has not looked for a record yet; a second delivery is admitted meanwhile.
    expect(await confirmation.admit(entry('e2'), INVOICE.id, false)).toBe(false);
    expect(lookups).toBe(1);
    expect(postponed).toEqual([{ id: 'e2', problem: `${NO_RECORD_YET} for invoice ${INVOICE.id}` }]);
  });

  it('does not remember an invoice this store had a record of when admitted', async () => {
    const first = entry('e1');
    await confirmation.confirm([first], INVOICE.id, true);
    expect(await confirmation.admit(entry('e2'), INVOICE.id, false)).toBe(true);
    expect(postponed).toEqual([]);
  });
});
