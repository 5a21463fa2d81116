import type { HostLookup } from '../gateway/gateway.options';
import { publicHttpsProblem } from '../gateway/webhook-destination';
import { checkWireProfileData } from '../gateway/wire-profile.check';
import type { EffectiveSettings } from './types';
import type { UpdateSettingsDto } from './admin.dto';

/**
 * The checks of a settings change that need the current settings or DNS; problems by field. In production, both
 * URLs must be https to public addresses; a stored token never follows a new `baseUrl`, so the admin key cannot walk
 * it out to an address of its holder's choice.
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
