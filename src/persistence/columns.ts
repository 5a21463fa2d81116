import { Column, ValueTransformer } from 'typeorm';

/**
 * Cents are stored as BIGINT: PostgreSQL hands BIGINT back as a string (it may exceed 2^53), so read it back into
 * a number and refuse anything that is not a safe integer rather than lose a cent.
 */
export const centsColumn: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return null;
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n)) throw new Error(`stored cents out of range: ${String(value)}`);
    return n;
  },
};

/**
 * Timestamps are stored as ISO-8601 text in a portable column: the same migration then runs on SQLite (which has
 * no timestamp type) and PostgreSQL, and values compare correctly as strings.
 */
const isoTimestampColumn: ValueTransformer = {
  to: (value: Date | null | undefined) => (value instanceof Date ? value.toISOString() : value),
  from: (value: string | null) => (value === null || value === undefined ? null : new Date(value)),
};

/**
 * A timestamp column of the module's tables: ISO-8601 text (`varchar(32)`) read back as a `Date`
 * ({@link isoTimestampColumn}). Non-null unless `nullable` is set.
 */
export function TimestampColumn(name: string, options: { nullable?: boolean } = {}): PropertyDecorator {
  return Column({
    name,
    type: 'varchar',
    length: 32,
    nullable: options.nullable ?? false,
    transformer: isoTimestampColumn,
  });
}
