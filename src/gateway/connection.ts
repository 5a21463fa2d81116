import { isHttpUrl, isNonBlank } from './dto/validators';
import { GatewayValidationError } from './errors';
import type { GatewayConnection } from './gateway.options';

/**
 * Checks a connection (from the options or from `resolveConfig()`, i.e. possibly from an admin form) before it is
 * used; a bad one is a `GatewayValidationError` naming the setting, with nothing sent. The base URL loses its
 * trailing slashes so paths join cleanly.
 */
export function checkConnection(
  source: Partial<GatewayConnection> | null | undefined,
  operation: string,
  needsToken = true,
): GatewayConnection {
  const fields: Record<string, string[]> = {};
  if (!isHttpUrl(source?.baseUrl)) fields.baseUrl = ['must be an absolute http(s) URL'];
  if (needsToken && !isNonBlank(source?.accessToken)) fields.accessToken = ['is required'];
  if (source?.mode !== 'sandbox' && source?.mode !== 'production')
    fields.mode = ['must be sandbox or production'];
  if (!source || Object.keys(fields).length > 0) {
    const names = Object.keys(fields).join(', ');
    throw new GatewayValidationError(
      { operation, sent: false },
      `invalid configuration: ${names}; nothing was sent`,
      fields,
    );
  }
  return {
    baseUrl: String(source.baseUrl).replace(/\/+$/, ''),
    accessToken: source.accessToken ?? '',
    mode: source.mode as GatewayConnection['mode'],
  };
}
