/** One call to the service, its retries included. */
export interface GatewayCall {
  /** The service's base URL: which service was called, when a store talks to more than one. */
  baseUrl: string;
  operation: string;
}

/**
 * Told of every call the gateway makes to the service. The gateway knows nothing of metrics or traces: the module
 * hands it observability's observer (a client span, the call's duration, its outcome for the health check).
 * `work` runs inside `observe`, so that a span the observer opens is the active one while the request is sent; the
 * call settles as `work` settles, and the observer must hand its result or its error back unchanged.
 */
export interface GatewayCallObserver {
  observe<T>(call: GatewayCall, work: () => Promise<T>): Promise<T>;
}
