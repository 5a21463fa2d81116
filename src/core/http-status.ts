import type { GatewayError } from '../gateway/errors';

/**
 * The one answer to "what should my API say when the payment service failed?": the HTTP status for each gateway
 * error kind. A refusal about the request itself keeps its meaning (400, 404, 409); a failure of the service or of
 * the store's credential there is the upstream's fault (502, 503, 504), not the caller's. Used by the admin API;
 * hosts can use it in their own exception filters (the demo store does).
 */
export const GATEWAY_ERROR_HTTP_STATUS: Readonly<Record<GatewayError['kind'], number>> = {
  validation: 400,
  not_found: 404,
  state_conflict: 409,
  mode: 409,
  // The configured wire profile has no such operation.
  unsupported: 501,
  // The store's own credential was refused by the service: the request was fine, the upstream was not.
  authentication: 502,
  scope: 502,
  rate_limit: 503,
  unavailable: 502,
  timeout: 504,
  network: 502,
  // The service may have acted: the caller must not assume either way (the checkout looks it up).
  outcome_unknown: 504,
  response: 502,
};
