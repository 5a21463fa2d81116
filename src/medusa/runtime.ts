import { DynamicModule, INestApplicationContext, Inject, Injectable, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { INVOICE_PAYMENTS_MIGRATIONS } from '../../migrations';
import { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { ShopperPaymentsService } from '../checkout/shopper-payments.service';
import { InvoicePaymentsModule } from '../invoice-payments.module';
import { INVOICE_PAYMENTS_ENTITIES } from '../entities';
import { runMigrationsExclusively } from '../persistence/migration-lock';
import { RefundService } from '../refunds/refund.service';
import { SecretBox } from '../settings/secret-box';
import { InvoicePaymentsSettingsService } from '../settings/settings.service';
import { TrackingService } from '../shipping/tracking.service';
import type { ProviderWebhookPayload, WebhookActionResult } from '../core/checkout.types';
import { asPaymentServiceError, fieldsSummary } from '../core/invoice.errors';
import type { FieldErrors } from '../gateway/dto/validators';
import { HOST_WEBHOOKS, webhookActionOf, webhookActionOfOutcome, type HostWebhooks } from '../core/ports';
import { CLOCK, type Clock } from '../domain/clock';
import { InvoicePaymentsError } from '../domain/invoice-payments.error';
import { httpAnswerOf } from '../errors/http-answers';
import { GATEWAY_CLIENT_OPTIONS, type GatewayClientOptions } from '../gateway/gateway.options';
import { centsToWireNumber, type Cents } from '../gateway/money';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { InvoicePaymentsMedusaOptions, MedusaWebhookActionResult } from './types';

/** Schema of the module's tables inside Medusa's database, unless the options name another. */
export const DEFAULT_MEDUSA_SCHEMA = 'invoice_payments';
/** The module's own migrations table: TypeORM's history never mixes with Medusa's (MikroORM's). */
export const MEDUSA_MIGRATIONS_TABLE = 'invoice_payments_migrations';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export type MedusaErrorClass = new (type: string, message: string) => Error;

/** The part of `@medusajs/framework/utils` the adapter uses. */
export interface MedusaFrameworkUtils {
  AbstractPaymentProvider: abstract new (cradle: Record<string, unknown>, config?: object) => object;
  ModuleProvider(module: string, definition: { services: unknown[]; loaders?: unknown[] }): unknown;
  Modules: { PAYMENT: string; WORKFLOW_ENGINE: string };
  MedusaError: MedusaErrorClass;
}

/** `@medusajs/framework/utils` of the Medusa application: an optional peer, needed only by this entry point. */
export function loadMedusaFramework(): MedusaFrameworkUtils {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only by this entry point
    return require('@medusajs/framework/utils') as MedusaFrameworkUtils;
  } catch (err) {
    throw new Error(
      'nestjs-invoice-payments/medusa needs @medusajs/framework (Medusa v2.5 or later) installed beside it: ' +
        (err instanceof Error ? err.message : String(err)),
    );
  }
}

/** The module's TypeORM connection inside Medusa: PostgreSQL, its own pool, schema and migrations table. */
export function medusaDataSourceOptions(options: InvoicePaymentsMedusaOptions): DataSourceOptions {
  const url = options.databaseUrl ?? process.env.DATABASE_URL;
  if (!url) throw new Error('invoice-payments (Medusa): databaseUrl is required (or DATABASE_URL)');
  const schema = options.databaseSchema ?? DEFAULT_MEDUSA_SCHEMA;
  if (!IDENTIFIER.test(schema))
    throw new Error(`invoice-payments (Medusa): databaseSchema "${schema}" is not an identifier`);
  return {
    type: 'postgres',
    url,
    schema,
    entities: INVOICE_PAYMENTS_ENTITIES,
    migrations: INVOICE_PAYMENTS_MIGRATIONS,
    migrationsTableName: MEDUSA_MIGRATIONS_TABLE,
    // The search path makes the module's few raw SQL statements land in its schema too.
    extra: { max: options.poolSize ?? 5, options: `-c search_path=${schema}` },
  };
}

/** Creates the module's schema when missing and runs its pending migrations (docs/medusa.md, "Tables and migrations"). */
export async function runInvoicePaymentsMigrations(options: InvoicePaymentsMedusaOptions): Promise<string[]> {
  const dataSourceOptions = medusaDataSourceOptions(options);
  const dataSource = await new DataSource(dataSourceOptions).initialize();
  try {
    const schema = (dataSourceOptions as { schema: string }).schema;
    // Under the module's migration lock: providers starting at once create the schema and migrate one at a time.
    return await runMigrationsExclusively(dataSource, {
      transaction: 'each',
      before: (queryRunner) => queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`),
    });
  } finally {
    await dataSource.destroy();
  }
}

/** What the adapter calls in its runtime, injected from what `InvoicePaymentsModule` exports (no search by class). */
@Injectable()
export class MedusaRuntimeServices {
  constructor(
    readonly provider: InvoicePaymentProvider,
    readonly checkout: InvoiceCreationService,
    readonly tracking: TrackingService,
    readonly refunds: RefundService,
    readonly settings: InvoicePaymentsSettingsService,
    readonly shopper: ShopperPaymentsService,
    @InjectDataSource() readonly dataSource: DataSource,
    @Inject(CLOCK) readonly clock: Clock,
    /** For a settings change (`POST /admin/invoice-payments/settings`): secrets encrypted, production URLs looked up. */
    readonly secretBox: SecretBox,
    @Inject(GATEWAY_CLIENT_OPTIONS) readonly gatewayOptions: GatewayClientOptions,
  ) {}
}

export const logger = new Logger('InvoicePayments:Medusa');
const runtimes = new Map<string, Promise<INestApplicationContext>>();

/** The Nest application context of these options, started once per process and shared by every provider instance. */
export function invoicePaymentsRuntime(
  options: InvoicePaymentsMedusaOptions,
): Promise<INestApplicationContext> {
  const key = JSON.stringify(options);
  let started = runtimes.get(key);
  if (!started) {
    started = start(options);
    runtimes.set(key, started);
    // A failed start is not cached: the next call tries again (the database may have been down).
    started.catch(() => runtimes.delete(key));
  }
  return started;
}

/** The runtime's root module: a class of its own, its providers given where it is built. */
class InvoicePaymentsMedusaHostModule {}

async function start(options: InvoicePaymentsMedusaOptions): Promise<INestApplicationContext> {
  if (options.runMigrations !== false) await runInvoicePaymentsMigrations(options);
  // TypeORM, the event bus and `InvoicePaymentsModule`, no HTTP server.
  const root: DynamicModule = {
    module: InvoicePaymentsMedusaHostModule,
    providers: [MedusaRuntimeServices],
    imports: [
      TypeOrmModule.forRoot(medusaDataSourceOptions(options)),
      EventEmitterModule.forRoot(),
      InvoicePaymentsModule.forRoot({
        gateway: options.gateway,
        checkout: options.checkout,
        // Deliveries arrive through Medusa's `/hooks/payment/...` route (an application context has no route).
        webhooks: options.webhooks,
        // Shipments come from Medusa's subscriber (`recordMedusaShipment`), not a Nest event.
        shipping: { ...options.shipping, shipmentEvent: false },
        admin: options.admin,
        notifications: options.notifications,
        reconciliation: options.reconciliation,
      }),
    ],
  };
  // abortOnError false: a failure is thrown to Medusa, never a process.exit inside the host.
  return NestFactory.createApplicationContext(root, {
    logger: options.logLevels ?? ['error', 'warn'],
    abortOnError: false,
  });
}

/** The services of the runtime of these options, started on first use. */
export async function runtimeServices(options: InvoicePaymentsMedusaOptions): Promise<MedusaRuntimeServices> {
  return (await invoicePaymentsRuntime(options)).get(MedusaRuntimeServices);
}

/** The runtimes of this process that have started (a failed or pending start is left out), for the sync job. */
export async function startedInvoicePaymentsRuntimes(): Promise<INestApplicationContext[]> {
  const settled = await Promise.allSettled([...runtimes.values()]);
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

/** Closes every runtime of this process (their workers and connections): for tests and graceful shutdowns. */
export async function closeInvoicePaymentsRuntimes(): Promise<void> {
  const all = [...runtimes.values()];
  runtimes.clear();
  await Promise.allSettled(all.map(async (started) => (await started).close()));
}

/** The provider's loader: starts the runtime with Medusa; not awaited (a failed start is tried again on use). */
export async function invoicePaymentsStartupLoader({
  options,
}: {
  options?: Record<string, unknown>;
}): Promise<void> {
  if (!options || typeof options !== 'object' || !('gateway' in options)) return;
  invoicePaymentsRuntime(options as unknown as InvoicePaymentsMedusaOptions).catch((err: unknown) =>
    logger.error(`could not start: ${(err as Error).message}`),
  );
}

/** Cents to the major-unit number Medusa takes (`1348` → `13.48`), from the exact decimal text. */
export const centsToMedusaAmount: (cents: Cents) => number = centsToWireNumber;

/**
 * A record's action (`result`, else {@link webhookActionOf}) for Medusa: its payment session is the order's, the amount
 * in major units. A duplicate invoice's report moves nothing (docs/checkout.md): on the order's one session it would
 * pass for the order's own payment.
 */
export function webhookActionOfRecord(
  record: InvoiceRecord,
  { action, data }: WebhookActionResult = webhookActionOf(record),
): MedusaWebhookActionResult {
  if (!data) return { action };
  if (record.duplicateOf !== null) return { action: 'not_supported' };
  return { action, data: { session_id: record.orderId, amount: centsToMedusaAmount(data.amount) } };
}

/** A delivery to Medusa's webhook route, through the module's own webhook path (docs/medusa.md, "Webhooks"). */
export async function webhookAction(
  app: INestApplicationContext,
  payload: ProviderWebhookPayload,
): Promise<MedusaWebhookActionResult> {
  const outcome = await app.get<HostWebhooks>(HOST_WEBHOOKS).receive(payload);
  // A delivery not settled now throws: Medusa's event bus retries the webhook event.
  const result = webhookActionOfOutcome(outcome, logger);
  return outcome.kind === 'applied'
    ? webhookActionOfRecord(outcome.record, result)
    : { action: result.action };
}

/** Medusa's error type of each status of the module's HTTP answers (`errors/http-answers.ts`) that is the caller's fault. */
const MEDUSA_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_data',
  404: 'not_found',
  409: 'not_allowed',
};

/** The module's errors as `MedusaError`s by their HTTP answer; the service's trouble stays a `PaymentServiceError`. */
export function toMedusaError(err: unknown, MedusaError: MedusaErrorClass): unknown {
  // Not settled yet, also while the service cannot be asked (a 503 there): the operation is not allowed now.
  const unsettled = err instanceof InvoicePaymentsError && err.details.serviceUnavailable === true;
  const answer = httpAnswerOf(err);
  const type = unsettled ? 'not_allowed' : answer && MEDUSA_TYPES[answer.status];
  if (!type) return asPaymentServiceError(err);
  const fields = err instanceof InvoicePaymentsError ? (err.details.fields as FieldErrors | undefined) : null;
  const detail = fields ? fieldsSummary(fields) : (err as Error).message;
  return Object.assign(new MedusaError(type, detail), { cause: err });
}
