import { systemClock } from '../domain/clock';
import { resolveWebhooksOptions } from '../options/webhooks.options';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

/** When a batch starts: after 25 ms without an arriving delivery, or 1 s after the first one waiting. */
describe('WebhookInboxProcessor quiet period', () => {
  let batch: WebhookInboxProcessor;
  let started: number[];
  let t0: number;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    t0 = Date.now();
    started = [];
    // Only the timing is under test: the batch itself is replaced.
    const dataSource = { getMetadata: () => ({ tableName: 'webhook_inbox' }) };
    const parts = [dataSource, null, resolveWebhooksOptions({}), null, null, null, null, systemClock];
    batch = new WebhookInboxProcessor(
      ...(parts as unknown as ConstructorParameters<typeof WebhookInboxProcessor>),
    );
    jest.spyOn(batch, 'runOnce').mockImplementation(() => {
      started.push(Date.now() - t0);
      return Promise.resolve(0);
    });
  });
  afterEach(() => {
    void batch.onModuleDestroy();
    jest.useRealTimers();
  });

  /** Advances the clock 1 ms at a time (an immediate queued by a timer runs on the next step). */
  const pass = (ms: number) => {
    for (let i = 0; i < ms; i++) jest.advanceTimersByTime(1);
  };

  it('starts 25 ms after a lone delivery', () => {
    batch.arriving();
    batch.kick();
    pass(24);
    expect(started).toEqual([]);
    pass(2);
    expect(started).toHaveLength(1);
    expect(started[0]).toBeGreaterThanOrEqual(25);
    expect(started[0]).toBeLessThanOrEqual(26);
  });

  it('counts the quiet from the last arrival, stored or not yet', () => {
    batch.arriving();
    batch.kick();
    pass(20);
    // A delivery came in but is not stored yet (its INSERT is in flight): no kick, yet the moment is not quiet.
    batch.arriving();
    pass(20);
    expect(started).toEqual([]);
    pass(7);
    expect(started).toHaveLength(1);
    expect(started[0]).toBeGreaterThanOrEqual(45);
    expect(started[0]).toBeLessThanOrEqual(47);
  });

  it('starts 1 s after the first waiting delivery however busy the stream', () => {
    batch.arriving();
    batch.kick();
    for (let ms = 0; ms < 1_500 && started.length === 0; ms += 10) {
      batch.arriving();
      pass(10);
    }
    expect(started).toHaveLength(1);
    expect(started[0]).toBeGreaterThanOrEqual(1_000);
    expect(started[0]).toBeLessThanOrEqual(1_011);
  });

  it('starts nothing once stopped', () => {
    batch.arriving();
    batch.kick();
    void batch.onModuleDestroy();
    jest.advanceTimersByTime(2_000);
    expect(started).toEqual([]);
  });
});
