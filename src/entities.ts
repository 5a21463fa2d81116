import { InvoiceRecord, InvoiceStatusHistory } from './persistence/invoice.entity';
import { InvoicePaymentsLease } from './persistence/named-lease';
import { InvoicePaymentsAlertRecord } from './settings/alert.entity';
import { InvoicePaymentsSettingsRecord } from './settings/settings.entity';
import { InvoiceRefund } from './refunds/refund.entity';
import { TrackingOutbox } from './shipping/tracking-outbox.entity';
import { WebhookInboxEntry } from './webhooks/webhook-inbox';

/**
 * Every entity of the module. Add them to the host's DataSource (`entities: [...]`) or let `autoLoadEntities`
 * pick them up; each capability appends its entity classes here.
 */
export const INVOICE_PAYMENTS_ENTITIES = [
  InvoiceRecord,
  InvoiceStatusHistory,
  TrackingOutbox,
  WebhookInboxEntry,
  InvoicePaymentsSettingsRecord,
  InvoicePaymentsAlertRecord,
  InvoicePaymentsLease,
  InvoiceRefund,
];
