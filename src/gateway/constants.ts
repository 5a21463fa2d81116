/** Injection token of `GatewayClientOptions`. */
export const GATEWAY_CLIENT_OPTIONS = 'INVOICE_PAYMENTS_GATEWAY_CLIENT_OPTIONS';

/** Injection token of the `GatewayCallObserver` told of every call (optional: without one, calls go unobserved). */
export const GATEWAY_CALL_OBSERVER = 'INVOICE_PAYMENTS_GATEWAY_CALL_OBSERVER';

/** Page size limit of every list operation (§4.1, §8). */
export const MAX_PAGE_SIZE = 100;

/** Operations by the scope they need (§5; A10 for consumers and disputes). */
const SCOPES = {
  'invoice.read': 'listInvoices iterateInvoices findInvoiceByReferrer findInvoiceById',
  'invoice.write': 'createInvoice',
  'invoice.update': 'changeDueDate cancelInvoice addTrackingCode',
  'invoice.refund': 'refundInvoice',
  'consumer.read': 'listConsumers',
  'dispute.read': 'listMediations listChargebacks',
};

/** Scope each operation needs. */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = scopesByOperation();

function scopesByOperation(): Record<string, string> {
  const scopes: Record<string, string> = {};
  for (const [scope, operations] of Object.entries(SCOPES)) {
    for (const operation of operations.split(' ')) scopes[operation] = scope;
  }
  return scopes;
}
