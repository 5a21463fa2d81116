import type { Clock } from '../../src/domain/clock';

/**
 * A clock a test moves. It starts at the wall clock's time (rows written before the test keep sensible ages) and
 * stands still until `advance` or `set` moves it. Give it to the module with `overrides: [[CLOCK, clock]]`.
 */
export class ManualClock implements Clock {
  private at: number;

  constructor(start = Date.now()) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  date(): Date {
    return new Date(this.at);
  }

  advance(ms: number): void {
    this.at += ms;
  }

  set(at: number | Date): void {
    this.at = typeof at === 'number' ? at : at.getTime();
  }
}
