import type { EventEmitter2 } from '@nestjs/event-emitter';
import type { LeasedRows } from '../core/queue/leased-rows';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { DeliveryConfirmation, LOOKUP_BURST, NO_RECORD_YET } from './delivery-confirmation';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { WebhookInboxEntry } from './webhook-inbox.entity';

const noRows = {} as LeasedRows<WebhookInboxEntry>;
const noEvents = {} as EventEmitter2;

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
    const options = {
      inbox: { unknownInvoiceWindowMs: 60_000, unknownLookupsPerWindow: 100, unknownLookupWindowMs: 60_000 },
    } as ResolvedWebhooksOptions;
    confirmation = new DeliveryConfirmation(gateway, options, noRows, noEvents);
    jest.spyOn(confirmation, 'retryLater').mockImplementation((e: WebhookInboxEntry, problem: string) => {
      postponed.push({ id: e.id, problem });
      return Promise.resolve();
    });
  });

  it('remembers the answer as soon as the service gives it, before the caller looks for a record', async () => {
    const first = entry('e1');
    expect(await confirmation.mayLookUp(first, INVOICE.id)).toBe(true);
    expect((await confirmation.confirm([first], INVOICE.id, false))?.invoice).toBe(INVOICE);
    // The first delivery's processing has not looked for a record yet; a second delivery is admitted meanwhile.
    expect(await confirmation.mayLookUp(entry('e2'), INVOICE.id)).toBe(false);
    expect(lookups).toBe(1);
    expect(postponed).toEqual([{ id: 'e2', problem: `${NO_RECORD_YET} for invoice ${INVOICE.id}` }]);
  });

  it('does not remember an invoice this store had a record of when admitted', async () => {
    const first = entry('e1');
    await confirmation.confirm([first], INVOICE.id, true);
    expect(await confirmation.mayLookUp(entry('e2'), INVOICE.id)).toBe(true);
    expect(postponed).toEqual([]);
  });
});

describe('DeliveryConfirmation pace', () => {
  let lookups: number;
  const paced = (lookupsPerSecond: number) => {
    lookups = 0;
    const gateway = { findInvoiceById: (id: string) => (lookups++, Promise.resolve({ id })) };
    const leased = { finish: () => Promise.resolve() } as unknown as LeasedRows<WebhookInboxEntry>;
    const inbox = {
      unknownInvoiceWindowMs: 60_000,
      unknownLookupsPerWindow: 100,
      unknownLookupWindowMs: 60_000,
    };
    const options = { lookupWindowMs: 1000, lookupsPerSecond, inbox } as ResolvedWebhooksOptions;
    const confirmation = new DeliveryConfirmation(
      gateway as unknown as GatewayClient,
      options,
      leased,
      noEvents,
    );
    jest.spyOn(confirmation, 'retryLater').mockResolvedValue();
    const entry = Object.assign(new WebhookInboxEntry(), {
      id: 'e',
      lastError: null,
      receivedAt: new Date(),
    });
    return { confirmation, started: (id: string) => confirmation.confirm([entry], id, true) };
  };
  afterEach(() => jest.useRealTimers());

  it('lets an invoice start a burst of lookups, then one a window, however often it is asked', async () => {
    jest.useFakeTimers({ now: 10_000 });
    const { confirmation, started: take } = paced(100);
    for (let i = 0; i < LOOKUP_BURST; i++) expect(await take('A')).not.toBeNull();
    expect(await take('A')).toBeNull();
    expect(confirmation.deferredUntil('A')).toEqual(new Date(Date.now() + 1000));
    let started = 0;
    for (let ms = 0; ms < 5000; ms += 10) {
      jest.advanceTimersByTime(10);
      if (await take('A')) started++;
    }
    expect(started).toBe(5); // one a window over five seconds
    expect(await take('B')).not.toBeNull(); // other invoices have their own
  });

  it('starts at most `perSecond` lookups a second in all, and says when the next second starts', async () => {
    jest.useFakeTimers({ now: 0 });
    const { confirmation, started: take } = paced(2);
    expect([await take('A'), await take('B')]).not.toContain(null);
    jest.advanceTimersByTime(300);
    const c = take('C');
    await jest.advanceTimersByTimeAsync(699);
    expect([lookups, confirmation.deferredUntil('C')]).toEqual([2, null]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await c).not.toBeNull();
    expect(lookups).toBe(3);
  });
});

// Found by an outside review: a delivery joining a lookup whose request had left before it arrived was answered by
// that older answer (a "paid" closed on the state before it).
describe('DeliveryConfirmation joining a lookup in flight', () => {
  it('a delivery that arrived after the request left waits for it, then asks again', async () => {
    const sent: number[] = [];
    // The first request stays in flight until the test lets it answer.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let left!: () => void;
    const firstLeft = new Promise<void>((resolve) => (left = resolve));
    const gateway = {
      findInvoiceById: async (id: string) => {
        sent.push(Date.now());
        left();
        await answered;
        return { id, amounts: { paidCents: null, grossCents: 100 } } as unknown as Invoice;
      },
    } as unknown as GatewayClient;
    const options = {
      lookupsPerSecond: 100,
      lookupWindowMs: 1000,
      inbox: { unknownLookupsPerWindow: 10, unknownLookupWindowMs: 1000, unknownInvoiceWindowMs: 1000 },
    } as unknown as ResolvedWebhooksOptions;
    const confirmation = new DeliveryConfirmation(gateway, options, noRows, noEvents);
    const delivered = (id: string) => Object.assign(new WebhookInboxEntry(), { id, receivedAt: new Date() });
    const early = delivered('a');
    const first = confirmation.confirm([early], 'INV', true);
    await firstLeft;
    // Received on a later millisecond than the request left.
    while (Date.now() <= sent[0]) await new Promise((resolve) => setImmediate(resolve));
    const late = delivered('b');
    const joined = confirmation.confirm([early], 'INV', true);
    const second = confirmation.confirm([late], 'INV', true);
    answer();
    const [one, two, three] = await Promise.all([first, joined, second]);
    expect(sent).toHaveLength(2);
    expect(two?.startedAt).toEqual(one?.startedAt);
    expect(three!.startedAt.getTime()).toBeGreaterThanOrEqual(late.receivedAt.getTime());
    expect(one!.startedAt.getTime()).toBeLessThan(late.receivedAt.getTime());
  });
});
