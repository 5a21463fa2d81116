import {
  Brackets,
  type DataSource,
  type EntityTarget,
  type ObjectLiteral,
  type QueryDeepPartialEntity,
} from 'typeorm';
import { runInTransaction } from '../../persistence/dialect';

/** An admin puts a row back in the queue with `patch`, only while still in `from` and no worker holds its lease. */
export async function requeueUnleased<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  id: string,
  column: 'state' | 'status',
  from: string,
  now: Date,
  patch: QueryDeepPartialEntity<T>,
): Promise<boolean> {
  const result = await runInTransaction(dataSource, (em) =>
    em
      .getRepository(entity)
      .createQueryBuilder()
      .update()
      .set(patch)
      .where(`id = :id AND ${column} = :from`, { id, from })
      .andWhere(
        new Brackets((w) =>
          w.where('locked_until IS NULL').orWhere('locked_until <= :now', { now: now.toISOString() }),
        ),
      )
      .execute(),
  );
  return (result.affected ?? 0) > 0;
}
