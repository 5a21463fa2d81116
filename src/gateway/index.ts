/** The gateway's public surface: the client, its options, errors, the normalizer and the types they speak. */
export { GatewayClient } from './gateway.client';
export type {
  GatewayClientOptions,
  GatewayConnection,
  GatewayMode,
  HostLookup,
  ResolvedGatewayConfig,
} from './gateway.options';
export {
  GATEWAY_CLIENT_OPTIONS,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  MAX_PAGE_SIZE,
  OPERATION_SCOPES,
} from './constants';
export * from './errors';
export type { ScopeProbeResult } from './gateway.client';
export { DEFAULT_WIRE_PROFILE, DEFAULT_LOOKUP_MAX_PAGES, mergeWireProfile } from './wire-profile';
export type * from './wire-profile';
export { renderTemplate } from './wire-template';
export type { WireTemplate } from './wire-template';
export { isLastPage } from './response.readers';
export { normalizeInvoice } from './invoice.normalizer';
export { redact } from './error.mapper';
export { assertResendAllowed, isPrivateAddress } from './webhook-destination';
export { isCalendarDay, isTaxDocument } from './dto/validators';
export * from './money';
export * from './status';
export type * from './types';
export type * from './wire.types';
