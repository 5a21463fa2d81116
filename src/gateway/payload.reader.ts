import type { LoggerService } from '@nestjs/common';
import { GatewayResponseError } from './errors';
import { asRecord, asText, type JsonRecord } from './json';
import {
  type Cents,
  ImplausibleAmountError,
  MoneyFormatError,
  serviceAmountToCents,
  serviceDisplayAmountToCents,
} from './money';

/** Strict reading for one operation: a malformed field is a `GatewayResponseError` naming it. */
export class PayloadReader {
  /**
   * Display-only amounts read as unknown in this answer, by field (`amount.fees`): finer than a cent, never rounded.
   * {@link UnknownAmountsLog} names each such field once.
   */
  readonly unknownAmounts = new Set<string>();

  constructor(readonly operation: string) {}

  fail(path: string, problem: string, implausibleAmount = false): never {
    const context = { operation: this.operation, sent: true };
    throw new GatewayResponseError(context, `unreadable ${path}: ${problem}`, implausibleAmount);
  }

  record(value: unknown, path: string): JsonRecord {
    return asRecord(value) ?? this.fail(path, 'not an object');
  }

  requiredText(value: unknown, path: string): string {
    const text = asText(value);
    if (text === null || text.trim() === '') this.fail(path, 'missing');
    return text;
  }

  /** Cents of an amount something is decided on; absent or `""` → `null`; not exactly cents, negative or absurd fails. */
  money(value: unknown, path: string): Cents | null {
    if (value === null || value === undefined || value === '') return null;
    return this.amount(value, path, serviceAmountToCents);
  }

  /**
   * Cents of an amount only shown (A1): a negative one is read; one finer than a cent is `null` and its `field` noted
   * in {@link unknownAmounts}. Not an amount at all, or absurd, fails as {@link money} does.
   */
  displayMoney(value: unknown, path: string, field: string): Cents | null {
    if (value === null || value === undefined || value === '') return null;
    const cents = this.amount(value, path, serviceDisplayAmountToCents);
    if (cents === null) this.unknownAmounts.add(field);
    return cents;
  }

  private amount(value: unknown, path: string, read: (value: number | string) => Cents | null): Cents | null {
    if (typeof value !== 'number' && typeof value !== 'string') this.fail(path, 'not an amount');
    try {
      return read(value);
    } catch (err) {
      if (err instanceof MoneyFormatError)
        this.fail(path, err.message, err instanceof ImplausibleAmountError);
      throw err;
    }
  }
}

/** Display-only amounts read as unknown (A1), logged at warn once per field for the client's life: the name only. */
export class UnknownAmountsLog {
  private readonly logged = new Set<string>();

  constructor(private readonly logger: LoggerService) {}

  /** After `r` read an answer: each field it read as unknown, unless logged before. */
  log(r: PayloadReader): void {
    for (const field of r.unknownAmounts) {
      if (this.logged.has(field)) continue;
      this.logged.add(field);
      const said = `the service's ${field} is finer than a cent: kept as unknown, not rounded (logged once a field)`;
      this.logger.warn(`${r.operation}: ${said}`);
    }
  }
}
