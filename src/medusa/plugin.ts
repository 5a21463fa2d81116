import { OrderNotPaidError } from '../domain/shipping.errors';
import type { RecordShipmentResult } from '../domain/shipping.types';
import { isHttpUrl } from '../gateway/dto/validators';
import { MEDUSA_PROCESS_PAYMENT_WORKFLOW, MedusaPaymentSessions, syncMedusaPayments } from './payment-sync';
import {
  invoicePaymentsRuntime,
  loadMedusaFramework,
  logger,
  runtimeServices,
  startedInvoicePaymentsRuntimes,
} from './runtime';
import type { InvoicePaymentsMedusaOptions, MedusaWebhookActionResult } from './types';

// What Medusa loads from the plugin: the files under `.medusa/server/src` re-export these handlers.

const PLUGIN_NAME = 'nestjs-invoice-payments';
/** The provider's sessions: Medusa names them `pp_<identifier>_<id>`. */
export const SESSION_PREFIX = 'pp_invoice-payments_';

/** A Medusa container (a job's, a subscriber's, a request's `req.scope`). */
export interface MedusaContainer {
  resolve<T = unknown>(key: string): T;
}

/** Medusa's `query` service (`container.resolve('query')`): only `graph` is used. */
export type MedusaQuery = { graph(input: object): Promise<{ data: unknown[] }> };

export interface MedusaRequest {
  scope: MedusaContainer;
  params: Record<string, string | undefined>;
  /** The JSON body, parsed by Medusa. */
  body?: unknown;
}

export interface MedusaResponse {
  status(code: number): MedusaResponse;
  json(body: unknown): void;
}

/** The plugin's options in `medusa-config.ts`: the provider's own, so the plugin and the provider share a runtime. */
export function pluginOptions(container: MedusaContainer): InvoicePaymentsMedusaOptions {
  const { plugins } = container.resolve<{ plugins?: Array<string | { resolve: string; options?: object }> }>(
    'configModule',
  );
  const entry = plugins?.find((p) => typeof p === 'object' && p.resolve === PLUGIN_NAME);
  const options = typeof entry === 'object' ? entry.options : undefined;
  if (options && 'gateway' in options) return options as InvoicePaymentsMedusaOptions;
  throw new Error(
    `invoice-payments (Medusa): give the plugin the provider's options: plugins: [{ resolve: '${PLUGIN_NAME}', options }]`,
  );
}

/** One row of Medusa's `query` by id, with its order's payment sessions of this provider (`sessionIds`). */
export async function withSessions<T>(
  container: MedusaContainer,
  entity: 'order' | 'fulfillment',
  id: string,
  fields: string[],
): Promise<(T & { sessionIds: string[] }) | undefined> {
  const path = entity === 'order' ? 'payment_collections' : 'order.payment_collections';
  const query = container.resolve<MedusaQuery>('query');
  const { data } = await query.graph({
    entity,
    fields: [...fields, `${path}.payment_sessions.id`, `${path}.payment_sessions.provider_id`],
    filters: { id },
  });
  type Collections = Array<{ payment_sessions?: Array<{ id: string; provider_id: string }> | null }>;
  const row = data[0] as
    (T & { payment_collections?: Collections; order?: { payment_collections?: Collections } }) | undefined;
  if (!row) return undefined;
  const sessionIds = ((entity === 'order' ? row : row.order)?.payment_collections ?? [])
    .flatMap((c) => c.payment_sessions ?? [])
    .filter((s) => s.provider_id.startsWith(SESSION_PREFIX))
    .map((s) => s.id);
  return { ...row, sessionIds };
}

/** The plugin's scheduled job, every minute: {@link syncMedusaPayments} through Medusa's workflow engine. */
export async function invoicePaymentsSyncJob(container: MedusaContainer): Promise<void> {
  await invoicePaymentsRuntime(pluginOptions(container));
  const { Modules } = loadMedusaFramework();
  const payments = container.resolve<MedusaPaymentSessions>(Modules.PAYMENT);
  const engine = container.resolve<{ run(id: string, options: { input: unknown }): Promise<unknown> }>(
    Modules.WORKFLOW_ENGINE,
  );
  const process = (input: Required<MedusaWebhookActionResult>) =>
    engine.run(MEDUSA_PROCESS_PAYMENT_WORKFLOW, { input });
  for (const app of await startedInvoicePaymentsRuntimes()) {
    await syncMedusaPayments(app, payments, process);
  }
}

export const invoicePaymentsSyncJobConfig = { name: 'invoice-payments-sync', schedule: '* * * * *' };

/** Medusa's event when a fulfillment is marked shipped (`FulfillmentWorkflowEvents.SHIPMENT_CREATED`). */
export const MEDUSA_SHIPMENT_EVENT = 'shipment.created';

/** A shipped Medusa order's tracking data: the payment sessions of its payment collections and the label. */
export interface MedusaShipment {
  /** Medusa payment session ids of the order (each is the order key of one invoice of this module). */
  sessionIds: string[];
  trackingCode: string;
  trackingUrl?: string;
  carrier?: string;
}

/** Queues the tracking code for the paid invoice among the order's sessions; `null` when none is paid (nothing sent). */
export async function recordMedusaShipment(
  options: InvoicePaymentsMedusaOptions,
  shipment: MedusaShipment,
): Promise<RecordShipmentResult | null> {
  const { tracking } = await runtimeServices(options);
  const { sessionIds, trackingCode, trackingUrl, carrier } = shipment;
  for (const orderId of sessionIds) {
    try {
      return await tracking.recordShipment({ orderId, trackingCode, trackingUrl, carrier });
    } catch (err) {
      if (!(err instanceof OrderNotPaidError)) throw err;
    }
  }
  return null;
}

/** The plugin's subscriber to {@link MEDUSA_SHIPMENT_EVENT}; a failure throws, so Medusa's event bus retries. */
export async function invoicePaymentsShipmentHandler({
  event,
  container,
}: {
  event: { data: { id?: string } };
  container: MedusaContainer;
}): Promise<void> {
  const fulfillmentId = event?.data?.id;
  if (!fulfillmentId) return;
  const row = await withSessions<{
    labels?: Array<{ tracking_number?: string | null; tracking_url?: string | null }> | null;
  }>(container, 'fulfillment', fulfillmentId, ['labels.tracking_number', 'labels.tracking_url']);
  const label = row?.labels?.find((l) => l?.tracking_number);
  if (!row || !label?.tracking_number) return;
  const result = await recordMedusaShipment(pluginOptions(container), {
    sessionIds: row.sessionIds,
    trackingCode: label.tracking_number,
    // Medusa's label URL is free text: sent only when it is a web address.
    trackingUrl: isHttpUrl(label.tracking_url) ? (label.tracking_url as string) : undefined,
  });
  if (!result)
    logger.log(`fulfillment ${fulfillmentId}: no paid invoice of this provider, no tracking code sent`);
}
