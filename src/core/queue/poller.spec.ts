import type { Logger } from '@nestjs/common';
import { systemClock } from '../../domain/clock';
import { Poller, QuietStart } from './poller';

class TestPoller extends Poller<number> {
  rounds = 0;
  hourlyRuns = 0;
  fail = false;
  gate: Promise<void> | null = null;
  sawStop: boolean[] = [];

  constructor(
    intervalMs = 60_000,
    readonly errors: string[] = [],
  ) {
    const log = (m: string) => errors.push(m);
    super('Test', { error: log, warn: log } as unknown as Logger, intervalMs, systemClock);
  }

  protected async round(stopped: () => boolean): Promise<number> {
    this.rounds++;
    if (this.gate) await this.gate;
    this.sawStop.push(stopped());
    if (this.fail) throw new Error('boom');
    return this.rounds;
  }

  protected override async hourly(): Promise<void> {
    this.hourlyRuns++;
    throw new Error('purge down');
  }
}

/** A poller whose rounds wait until `open()` is called. */
function gatedPoller(): [TestPoller, () => void] {
  const p = new TestPoller();
  let open!: () => void;
  p.gate = new Promise((resolve) => (open = resolve));
  return [p, open];
}

describe('Poller', () => {
  it('runs the first round at once when started, and the next after a kick', async () => {
    // The poller's clock is moved by hand: what it schedules is seen as timers, not waited for.
    jest.useFakeTimers();
    try {
      const p = new TestPoller();
      p.start();
      p.start();
      await jest.advanceTimersByTimeAsync(0);
      expect(p.rounds).toBe(1);
      expect(p.running).toBe(true);
      expect(jest.getTimerCount()).toBe(1); // the next poll, a minute away
      p.kick();
      await jest.advanceTimersByTimeAsync(0);
      expect(p.rounds).toBe(2);
      await p.stop();
      expect(p.running).toBe(false);
      p.kick();
      expect(jest.getTimerCount()).toBe(0); // nothing scheduled once stopped
      await jest.advanceTimersByTimeAsync(120_000);
      expect(p.rounds).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('joins a call made while a round runs, and runs while stopped', async () => {
    const [p, open] = gatedPoller();
    const first = p.runOnce();
    const second = p.runOnce();
    open();
    expect(await first).toBe(1);
    expect(await second).toBe(1);
    expect(p.rounds).toBe(1);
    p.gate = null;
    expect(await p.runOnce()).toBe(2);
  });

  it('tells the round under way that it was stopped, and waits for it', async () => {
    const [p, open] = gatedPoller();
    const round = p.runOnce();
    const stopping = p.stop();
    open();
    await stopping;
    await round;
    expect(p.sawStop).toEqual([true]);
  });

  it('logs a failed round or upkeep and goes on polling', async () => {
    jest.useFakeTimers();
    const p = new TestPoller(5);
    p.fail = true;
    try {
      p.start();
      await jest.advanceTimersByTimeAsync(20);
      await p.stop();
    } finally {
      jest.useRealTimers();
    }
    expect(p.rounds).toBeGreaterThan(1);
    expect(p.hourlyRuns).toBe(1);
    expect(p.errors).toContain('Test round failed: boom');
    expect(p.errors).toContain('Test upkeep failed: purge down');
  });
});

describe('QuietStart', () => {
  let started: number;
  let quiet: QuietStart;
  beforeEach(() => {
    jest.useFakeTimers();
    started = 0;
    quiet = new QuietStart(25, 1000, () => started++);
  });
  afterEach(() => jest.useRealTimers());

  it('hands a waiting batch to the caller on flush: none starts later', () => {
    expect(quiet.flush()).toBe(false);
    quiet.wait();
    expect(quiet.flush()).toBe(true);
    expect(quiet.waiting).toBe(false);
    jest.advanceTimersByTime(2_000);
    expect(started).toBe(0);
  });

  it('waits for nothing once stopped', () => {
    quiet.wait();
    quiet.stop();
    quiet.wait();
    jest.advanceTimersByTime(2_000);
    expect([started, quiet.flush()]).toEqual([0, false]);
  });
});
