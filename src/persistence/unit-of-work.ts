import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { runInTransaction } from './dialect';

/**
 * One database transaction and the work that must wait for its commit. What a write must tell others (the host's
 * port, the event bus) is registered on the transaction that wrote it, so no caller has to remember to pass it on,
 * and a transaction that rolls back tells nobody.
 */
export interface UnitOfWork {
  /** The transaction's manager: every read and write of the unit goes through it. */
  readonly em: EntityManager;
  /** Runs `work` once the transaction has committed (never if it rolls back), after the writer queue is released. */
  afterCommit(work: () => unknown): void;
}

const logger = new Logger('UnitOfWork');

/**
 * Runs `work` in one transaction ({@link runInTransaction}), then its after-commit work in order, once SQLite's
 * writer queue is released (so it may open transactions of its own). A failure there is logged, never thrown: the
 * transaction is committed, and its caller's answer stands.
 */
export async function transact<T>(dataSource: DataSource, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
  const pending: Array<() => unknown> = [];
  const value = await runInTransaction(dataSource, (em) =>
    work({ em, afterCommit: (next) => void pending.push(next) }),
  );
  for (const next of pending) runAfterCommit(next);
  return value;
}

/** Runs one piece of after-commit work, its failure (thrown or rejected) logged. */
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
