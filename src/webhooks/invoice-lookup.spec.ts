import { ManualClock } from '../../test/support/clock';
import type { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { DeliveryConfirmation, LOOKUP_BURST, LookupPacer, type StoredDelivery } from './invoice-lookup';
import { WebhookInboxEntry } from './webhook-inbox';

/** The pacer reads the clock the test moves: a window passes with `clock.advance`, not by waiting. */
const clock = new ManualClock();

const pacerOf = (lookupsPerSecond: number, unknownLookupsPerWindow = 100) =>
  new LookupPacer(
    {
      lookupWindowMs: 1000,
      lookupsPerSecond,
      inbox: { unknownLookupsPerWindow, unknownLookupWindowMs: 60_000 },
    } as ResolvedWebhooksOptions,
    clock,
  );

describe('LookupPacer', () => {
  it('lets an invoice start a burst of lookups, then one a window, however often it is asked', () => {
    clock.set(10_000);
    const pacer = pacerOf(100);
    for (let i = 0; i < LOOKUP_BURST; i++) expect(pacer.next('A')).toBe('now');
    expect(pacer.next('A')).toEqual({ at: new Date(clock.now() + 1000) });
    expect(pacer.dueAt('A')).toEqual(new Date(clock.now() + 1000));
    let started = 0;
    for (let ms = 0; ms < 5000; ms += 10) {
      clock.advance(10);
      if (pacer.next('A') === 'now') started++;
    }
    expect(started).toBe(5); // one a window over five seconds
    expect(pacer.next('B')).toBe('now'); // other invoices have their own
  });

  it('starts at most `lookupsPerSecond` lookups a second in all, and says when the next second starts', () => {
    clock.set(0);
    const pacer = pacerOf(2);
    expect([pacer.next('A'), pacer.next('B')]).toEqual(['now', 'now']);
    clock.advance(300);
    expect(pacer.next('C')).toEqual({ at: new Date(1000) });
    clock.advance(700);
    expect(pacer.next('C')).toBe('now');
  });

  it('counts lookups of invoices no record holds against their own budget', () => {
    clock.set(0);
    const pacer = pacerOf(100, 1);
    expect(pacer.next('X', true)).toBe('now');
    expect(pacer.next('Y', true)).toEqual({ at: new Date(60_000) });
    expect(pacer.next('Y')).toBe('now'); // once a record holds it, the common pace only
  });

  it('has deliveries join the entry waiting for its invoice turn, until that turn has passed', () => {
    clock.set(0);
    const pacer = pacerOf(100);
    expect(pacer.joinable('A')).toBeNull();
    pacer.waiting('A', 'entry-1', new Date(500));
    expect(pacer.joinable('A')).toBe('entry-1');
    clock.advance(1500);
    expect(pacer.joinable('A')).toBeNull();
  });

  it('has a burst join one stored entry, and stores one more once that entry is claimed', async () => {
    const pacer = pacerOf(100);
    for (let i = 0; i < LOOKUP_BURST; i++) pacer.next('A'); // spent: a delivery now waits for the invoice's turn
    const claimed = new Set<string>();
    let stored = 0;
    const how = {
      join: (id: string) => Promise.resolve(!claimed.has(id)),
      store: (): Promise<StoredDelivery> => {
        const id = `entry-${++stored}`;
        return Promise.resolve({
          id,
          state: 'pending',
          gatewayId: 'A',
          problem: null,
          duplicate: false,
          joined: false,
        });
      },
    };
    const burst = () => Promise.all(Array.from({ length: 10 }, () => pacer.place('A', how)));
    expect((await burst()).filter((placed) => placed.joined)).toHaveLength(9);
    expect(stored).toBe(1);
    claimed.add('entry-1'); // a batch took it: the next burst joins a new one
    expect((await burst()).map((placed) => placed.id)).toEqual(Array(10).fill('entry-2'));
    expect(stored).toBe(2);
  });
});

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
