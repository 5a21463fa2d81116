import type { AddressInfo } from 'node:net';
import { INestApplication, LoggerService, LogLevel, ModuleMetadata } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { OrderPaymentPort, PaymentStatusChange } from '../../src/core/ports';
import type { TestDatabase } from './databases';

/** The suite's one wait (test/support/wait-for.ts), where most suites import it from. */
export { waitFor } from './wait-for';

/** The token the sandbox accepts by default (every scope). */
export const SANDBOX_TOKEN = 'sandbox-token';

/** Gateway options for a sandbox at `baseUrl`: its default token, no retries (a failure shows at once). */
export function sandboxGateway(baseUrl: string) {
  return { baseUrl, accessToken: SANDBOX_TOKEN, mode: 'sandbox' as const, retry: { maxAttempts: 1 } };
}

/** The host's order port as a test sees it: every change it was told, and a switch to make it fail. */
export class RecordingOrderPort implements OrderPaymentPort {
  readonly changes: PaymentStatusChange[] = [];
  down = false;
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    if (this.down) throw new Error('host unavailable');
    this.changes.push(change);
  }
}

/** TypeORM on the test's own DataSource: the app opens no connection of its own. */
export function typeOrmOnTestDatabase(db: TestDatabase) {
  return TypeOrmModule.forRootAsync({
    useFactory: () => ({ ...db.options }),
    dataSourceFactory: async () => db.dataSource,
  });
}

/** Closes an app while keeping the test's DataSource open, for the next app and for assertions. */
export async function closeKeepingDataSource(app: INestApplication, db: TestDatabase): Promise<void> {
  const destroy = db.dataSource.destroy.bind(db.dataSource);
  db.dataSource.destroy = async () => undefined;
  try {
    await app.close();
  } finally {
    db.dataSource.destroy = destroy;
  }
}

export type ModuleImport = NonNullable<ModuleMetadata['imports']>[number];

export interface HostAppOptions {
  /** Modules imported ahead of TypeORM and the event bus (a global host module). */
  hostImports?: ModuleImport[];
  /** Nest's logger option (default: errors only). */
  logger?: LoggerService | LogLevel[] | false;
  /** Listen on an ephemeral loopback port (default: only initialise the app). */
  listen?: boolean;
  /** Runs on the app before it starts (body parsers, middleware). */
  configure?: (app: INestApplication) => void;
  /** Providers the test replaces, as `[token, value]` (e.g. `[CLOCK, new ManualClock()]`). */
  overrides?: Array<[unknown, unknown]>;
}

export interface HostApp {
  app: INestApplication;
  /** Base URL of the app on loopback, e.g. `http://127.0.0.1:40123` (empty unless `listen`). */
  url: string;
  /** Closes the app, keeping the test's DataSource open. */
  close(): Promise<void>;
}

/**
 * A host app as a store builds it: TypeORM on the test database, the event bus, then `imports` (the payment module
 * or some of its parts).
 */
export async function startHostApp(
  db: TestDatabase,
  imports: ModuleImport[],
  options: HostAppOptions = {},
): Promise<HostApp> {
  let builder = Test.createTestingModule({
    imports: [
      ...(options.hostImports ?? []),
      typeOrmOnTestDatabase(db),
      EventEmitterModule.forRoot(),
      ...imports,
    ],
  });
  for (const [token, value] of options.overrides ?? []) {
    builder = builder.overrideProvider(token as string).useValue(value);
  }
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ logger: options.logger ?? ['error'] });
  options.configure?.(app);
  let url = '';
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  } else {
    await app.init();
  }
  return { app, url, close: () => closeKeepingDataSource(app, db) };
}
