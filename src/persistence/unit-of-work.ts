import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { runInTransaction } from './dialect';

/** A transaction and what its writes must tell others once committed (a rollback tells nobody). */
export interface UnitOfWork {
  readonly em: EntityManager;
  /** Runs `work` once the transaction has committed (never if it rolls back), after the writer queue is released. */
  afterCommit(work: () => unknown): void;
}

const logger = new Logger('UnitOfWork');

/**
 * Runs `work` in one transaction, then its after-commit work once SQLite's writer queue is released; a failure there
 * is logged, never thrown (the transaction committed, the caller's answer stands).
 */
export async function transact<T>(dataSource: DataSource, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
  const pending: Array<() => unknown> = [];
  const value = await runInTransaction(dataSource, (em) =>
    work({ em, afterCommit: (next) => void pending.push(next) }),
  );
  for (const next of pending) runAfterCommit(next);
  return value;
}

export function runAfterCommit(work: () => unknown): void {
  const failed = (err: unknown) =>
    logger.error(`after-commit work failed: ${err instanceof Error ? err.message : String(err)}`);
  try {
    const done = work();
    if (done instanceof Promise) done.catch(failed);
  } catch (err) {
    failed(err);
  }
}
