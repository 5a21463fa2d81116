/** Injection token of `GatewayClientOptions`. */
export const GATEWAY_CLIENT_OPTIONS = 'INVOICE_PAYMENTS_GATEWAY_CLIENT_OPTIONS';

/** Page size limit of every list operation (§4.1, §8). */
export const MAX_PAGE_SIZE = 100;

/** Scope each operation needs (§5; A10 for consumers and disputes). */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = {
  listInvoices: 'invoice.read',
  iterateInvoices: 'invoice.read',
  findInvoiceByReferrer: 'invoice.read',
  findInvoiceById: 'invoice.read',
  createInvoice: 'invoice.write',
  changeDueDate: 'invoice.update',
  cancelInvoice: 'invoice.update',
  addTrackingCode: 'invoice.update',
  refundInvoice: 'invoice.refund',
  listConsumers: 'consumer.read',
  listMediations: 'dispute.read',
  listChargebacks: 'dispute.read',
};
