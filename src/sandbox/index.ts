/**
 * The payment service's sandbox: a real HTTP server on 127.0.0.1 that behaves as the service does (spec and
 * `docs/gateway-assumptions.md`), for tests and demos. Import it as `nestjs-invoice-payments/sandbox`.
 * See `docs/sandbox.md`.
 */
export { startSandbox } from './server';
export { SandboxError } from './errors';
export {
  ALL_SCOPES,
  DEFAULT_TOKEN,
  DEFAULT_CLIENT_ID,
  DEFAULT_CLIENT_SECRET,
  DEFAULT_ACCOUNT_ID,
  DEFAULT_GATEWAY_NAME,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
  TEST_CARDS,
} from './constants';
export { DEFAULT_WEBHOOK_ID } from './webhook-registry';
export { CARD_SCRIPT_PATH, CARD_SCRIPT_FUNCTION, CARD_TOKENS_PATH } from './card-script';
export type * from './types';
