/** The gateway's public surface: the client, its options, errors, the normalizer and the types they speak. */
export { GatewayClient } from './gateway.client';
export type {
  GatewayClientOptions,
  GatewayConnection,
  GatewayMode,
  GatewayPaths,
  GatewayListQueryNames,
  HostLookup,
} from './gateway.options';
export {
  GATEWAY_CLIENT_OPTIONS,
  DEFAULT_LIST_QUERY,
  DEFAULT_PATHS,
  DEFAULT_PAYMENT_TYPES,
  DEFAULT_PRODUCT_TYPES,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  MAX_PAGE_SIZE,
  OPERATION_SCOPES,
} from './constants';
export * from './errors';
export { normalizeInvoice } from './invoice.normalizer';
export { redact } from './error.mapper';
export { assertResendAllowed, isPrivateAddress } from './webhook-destination';
export { isCalendarDay, isTaxDocument } from './dto/validators';
export * from './money';
export * from './status';
export type * from './types';
export type * from './wire.types';
