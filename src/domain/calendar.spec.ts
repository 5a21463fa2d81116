import { isCalendarDay, isCardExpiryCurrent } from '../gateway/dto/validators';
import { addDays, dayEndIn, firstDueDay, isTimeZone, todayIn } from './text-and-days';

describe('calendar', () => {
  it.each([
    ['2026-11-22T02:59:00Z', 'America/Sao_Paulo', '2026-11-21'],
    ['2026-11-22T03:00:00Z', 'America/Sao_Paulo', '2026-11-22'],
    ['2026-11-22T02:59:00Z', 'UTC', '2026-11-22'],
    ['2026-12-31T23:00:00Z', 'Asia/Tokyo', '2027-01-01'],
  ])('today at %s in %s is %s', (instant, zone, day) => {
    expect(todayIn(zone, new Date(instant))).toBe(day);
  });

  // The service refuses a due day before its today in its own zone (A2), whichever zone the store counts in.
  it.each([
    ['2026-11-22T02:59:00Z', 'America/Sao_Paulo', 'America/Sao_Paulo', '2026-11-21'],
    ['2026-11-22T03:00:00Z', 'America/Sao_Paulo', 'America/Sao_Paulo', '2026-11-22'],
    ['2026-11-22T03:30:00Z', 'America/Manaus', 'America/Sao_Paulo', '2026-11-22'],
    ['2026-11-22T04:30:00Z', 'America/Rio_Branco', 'America/Sao_Paulo', '2026-11-22'],
    ['2026-11-22T05:30:00Z', 'America/Rio_Branco', 'America/Sao_Paulo', '2026-11-22'],
    ['2026-11-22T02:30:00Z', 'UTC', 'America/Sao_Paulo', '2026-11-22'],
    // A service that chose another zone: Tokyo is on the 23rd from 15:00 UTC, São Paulo still on the 22nd.
    ['2026-11-22T15:30:00Z', 'America/Sao_Paulo', 'Asia/Tokyo', '2026-11-23'],
    ['2026-11-22T14:30:00Z', 'America/Sao_Paulo', 'Asia/Tokyo', '2026-11-22'],
    ['2026-11-22T02:30:00Z', 'America/Sao_Paulo', 'America/Noronha', '2026-11-22'],
  ])(
    'the first due day at %s for a store in %s and a service in %s is %s',
    (instant, store, service, day) => {
      expect(firstDueDay(store, service, new Date(instant))).toBe(day);
    },
  );

  it.each([
    ['America/Sao_Paulo', true],
    ['Asia/Tokyo', true],
    ['UTC', true],
    ['America/Sao_Paul', false],
    ['-03:00', false],
    ['', false],
    [3, false],
  ])('%s is an IANA time zone: %s', (zone, known) => {
    expect(isTimeZone(zone)).toBe(known);
  });

  it.each([
    ['2026-11-21', 3, '2026-11-24'],
    ['2026-12-30', 3, '2027-01-02'],
    ['2028-02-28', 1, '2028-02-29'],
    ['2026-03-01', -1, '2026-02-28'],
  ])('%s + %i days is %s', (day, days, expected) => {
    expect(addDays(day, days)).toBe(expected);
  });

  it.each([
    ['2026-02-28', true],
    ['2026-02-29', false],
    ['2026-13-01', false],
    ['26-01-01', false],
    [20260101, false],
  ])('%p is a calendar day: %p', (value, expected) => {
    expect(isCalendarDay(value)).toBe(expected);
  });

  it.each([
    ['11/26', '2026-11-30', true],
    ['11/26', '2026-12-01', false],
    ['01/27', '2026-12-31', true],
    ['12/25', '2026-01-01', false],
    ['00/27', '2026-01-01', false],
    ['1/27', '2026-01-01', false],
  ])('card expiring %s on %s is current: %p', (expiry, today, expected) => {
    expect(isCardExpiryCurrent(expiry, today)).toBe(expected);
  });

  it.each([
    ['2026-11-29', 'America/Sao_Paulo', '2026-11-30T03:00:00.000Z'],
    ['2026-11-29', 'UTC', '2026-11-30T00:00:00.000Z'],
    ['2026-12-31', 'Asia/Kolkata', '2026-12-31T18:30:00.000Z'],
    // Berlin's clocks go forward on the night of 2026-03-29: the next midnight is at +02:00.
    ['2026-03-29', 'Europe/Berlin', '2026-03-29T22:00:00.000Z'],
    ['2026-10-24', 'Europe/Berlin', '2026-10-24T22:00:00.000Z'],
    ['2026-10-25', 'Europe/Berlin', '2026-10-25T23:00:00.000Z'],
  ])('%s ends in %s at %s', (day, zone, instant) => {
    expect(dayEndIn(day, zone).toISOString()).toBe(instant);
    expect(todayIn(zone, new Date(new Date(instant).getTime() - 1))).toBe(day);
    expect(todayIn(zone, new Date(instant))).toBe(addDays(day, 1));
  });
});
