import { serializedMigrations } from '../src/persistence/migration-lock';
import { InvoicePaymentsInit1763700000000 } from './1763700000000-InvoicePaymentsInit';
import { WebhookInbox1763700001000 } from './1763700001000-WebhookInbox';
import { TrackingOutbox1763700002000 } from './1763700002000-TrackingOutbox';
import { Settings1763700003000 } from './1763700003000-Settings';
import { SettingsWireProfile1763700004000 } from './1763700004000-SettingsWireProfile';
import { Alerts1763700005000 } from './1763700005000-Alerts';
import { StatusNotifyLease1763700006000 } from './1763700006000-StatusNotifyLease';
import { CheckoutSettlement1763700005500 } from './1763700005500-CheckoutSettlement';
import { WebhookInboxInvoiceIndex1763700007000 } from './1763700007000-WebhookInboxInvoiceIndex';
import { RefundLedger1763700008000 } from './1763700008000-RefundLedger';
import { SettingsReferrerNamespace1763700008100 } from './1763700008100-SettingsReferrerNamespace';
import { OpenInvoiceReconciliation1763700009000 } from './1763700009000-OpenInvoiceReconciliation';
import { WebhookInboxRetention1763700009100 } from './1763700009100-WebhookInboxRetention';
import { InvoiceCustomer1763700011000 } from './1763700011000-InvoiceCustomer';
import { TrackingErrorKind1763700011100 } from './1763700011100-TrackingErrorKind';
import { InvoicePaymentsScaleIndexes1763700013700 } from './1763700013700-InvoicePaymentsScaleIndexes';
import { ShopperStatusToken1763700014000 } from './1763700014000-ShopperStatusToken';
import { WebhookInboxWaitingFor1763700015200 } from './1763700015200-WebhookInboxWaitingFor';
import { ReconciliationWatchedFrom1763700015300 } from './1763700015300-ReconciliationWatchedFrom';

/** Every migration of the module, oldest first; each capability appends its migration class here. */
const MODULE_MIGRATIONS = [
  InvoicePaymentsInit1763700000000,
  WebhookInbox1763700001000,
  TrackingOutbox1763700002000,
  Settings1763700003000,
  SettingsWireProfile1763700004000,
  Alerts1763700005000,
  CheckoutSettlement1763700005500,
  StatusNotifyLease1763700006000,
  WebhookInboxInvoiceIndex1763700007000,
  RefundLedger1763700008000,
  SettingsReferrerNamespace1763700008100,
  OpenInvoiceReconciliation1763700009000,
  WebhookInboxRetention1763700009100,
  InvoiceCustomer1763700011000,
  TrackingErrorKind1763700011100,
  InvoicePaymentsScaleIndexes1763700013700,
  ShopperStatusToken1763700014000,
  WebhookInboxWaitingFor1763700015200,
  ReconciliationWatchedFrom1763700015300,
];

/**
 * Every migration of the module, oldest first, each safe to run from several instances at once (PostgreSQL: the
 * module's advisory lock, see `serializedMigration`). Add them to the host's DataSource (`migrations: [...]`) next
 * to the host's own.
 */
export const INVOICE_PAYMENTS_MIGRATIONS = serializedMigrations(MODULE_MIGRATIONS);
