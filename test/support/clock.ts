import { type Clock, systemClock } from '../../src/domain/clock';

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

/**
 * The wall clock moved to another instant: it starts at `start` and runs at real speed, so retries, windows and
 * leases behave as they do on the wall clock, but the calendar day is the one the test chose. Give the same clock to
 * the module (`overrides: [[CLOCK, clock]]`) and to the sandbox (`clock: () => clock.date()`), so the store and the
 * service agree on what today is.
 */
export class ShiftedClock implements Clock {
  private offset: number;

  constructor(start: number | Date) {
    this.offset = 0;
    this.set(start);
  }

  now(): number {
    return Date.now() + this.offset;
  }

  date(): Date {
    return new Date(this.now());
  }

  advance(ms: number): void {
    this.offset += ms;
  }

  set(at: number | Date): void {
    this.offset = (typeof at === 'number' ? at : at.getTime()) - Date.now();
  }
}

/**
 * Noon in São Paulo (15:00 UTC): a test whose answers name today's date runs here, hours away from the store's
 * midnight, from UTC midnight and from the last minutes of the day in which a due-today PIX is already renewable.
 */
export const SAO_PAULO_NOON = new Date('2026-11-30T15:00:00Z');

/**
 * For a suite whose host builds the module itself (Vendure's plugin), where no test can override `CLOCK`: the
 * module's default clock ({@link systemClock}) reads `clock` until the returned function restores it. Give the
 * sandbox the same clock. The host's own code keeps the wall clock; it computes no due day.
 */
export function driveSystemClock(clock: Clock): () => void {
  const now = jest.spyOn(systemClock, 'now').mockImplementation(() => clock.now());
  const date = jest.spyOn(systemClock, 'date').mockImplementation(() => clock.date());
  return () => {
    now.mockRestore();
    date.mockRestore();
  };
}
