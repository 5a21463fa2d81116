import type { HostLookup } from '../gateway/gateway.options';
import { publicHttpsProblem } from '../gateway/webhook-destination';
import { checkWireProfileData } from '../gateway/wire-profile.check';
import type { EffectiveSettings } from './types';
import type { UpdateSettingsDto } from './admin.dto';

/**
 * The checks of a settings change that need more than its own fields (the current settings, DNS). Returns the
 * problems by field; nothing is saved while there are any, so nothing is ever sent to a refused address.
 *
 * - In production mode (the mode after this change), `baseUrl` and `publicWebhookUrl` must be https and resolve only
 *   to public addresses: the access token is sent to the one, customers' payment notices point at the other.
 * - A new `baseUrl` must come with the access token in the same change (or `accessToken: null`): a stored secret
 *   never follows a new host, so whoever holds the admin key cannot walk the token out to an address they choose.
 * - `wireProfile` is checked part by part.
 */
export async function checkSettingsUpdate(
  body: UpdateSettingsDto,
  current: EffectiveSettings,
  lookup?: HostLookup,
): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const mode = body.mode ?? current.mode;
  if (mode === 'production') {
    for (const field of ['baseUrl', 'publicWebhookUrl'] as const) {
      const url = body[field] !== undefined ? body[field] : current[field];
      if (typeof url !== 'string') continue;
      const problem = await publicHttpsProblem(url, lookup);
      if (problem) (errors[field] ??= []).push(`${field} ${problem} (production mode)`);
    }
  }
  const newHost = typeof body.baseUrl === 'string' && originOf(body.baseUrl) !== originOf(current.baseUrl);
  if (newHost && body.accessToken === undefined && current.accessToken) {
    (errors.accessToken ??= []).push(
      'is required with a new baseUrl (or null to clear it): the stored token is never sent to a new host',
    );
  }
  if (body.wireProfile) Object.assign(errors, checkWireProfileData(body.wireProfile));
  return errors;
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
