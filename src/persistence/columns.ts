import { Column, ValueTransformer } from 'typeorm';

/** PostgreSQL hands BIGINT back as a string: read as a number, refusing any unsafe integer rather than lose a cent. */
export const centsColumn: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return null;
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n)) throw new Error(`stored cents out of range: ${String(value)}`);
    return n;
  },
};

/** ISO-8601 text: one migration for SQLite (no timestamp type) and PostgreSQL, comparing correctly as strings. */
const isoTimestampColumn: ValueTransformer = {
  to: (value: Date | null | undefined) => (value instanceof Date ? value.toISOString() : value),
  from: (value: string | null) => (value === null || value === undefined ? null : new Date(value)),
};

/** A timestamp column (`varchar(32)`, read back as a `Date`); non-null unless `nullable` is set. */
export function TimestampColumn(name: string, options: { nullable?: boolean } = {}): PropertyDecorator {
  return Column({
    name,
    type: 'varchar',
    length: 32,
    nullable: options.nullable ?? false,
    transformer: isoTimestampColumn,
  });
}
