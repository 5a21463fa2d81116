import type { HostLookup } from '../gateway/gateway.options';
import { adminValidationError, problemsOf } from './admin-problems';
import type { SecretBox } from './secret-box';
import { checkSettingsUpdate, type UpdateSettingsDto } from './settings.dto';
import { SECRET_SETTINGS, type MaskedSettings } from './settings.entity';
import type { InvoicePaymentsSettingsService } from './settings.service';

/** What a settings change needs: the settings, the key that encrypts secrets, the DNS look-up of production URLs. */
export interface SettingsSaveDeps {
  settings: InvoicePaymentsSettingsService;
  box: SecretBox;
  lookup?: HostLookup;
}

/**
 * Saves a settings change whose fields were checked one by one (`UpdateSettingsDto`), after the checks that need
 * what is saved now: the admin API's `PUT settings` and Medusa's `POST /admin/invoice-payments/settings` both come
 * here. A refusal throws the admin API's 400 (`adminValidationError`), naming each field.
 */
export async function saveSettings(
  { settings, box, lookup }: SettingsSaveDeps,
  body: UpdateSettingsDto,
): Promise<MaskedSettings> {
  const secrets = SECRET_SETTINGS.filter((name) => typeof body[name] === 'string');
  if (secrets.length > 0 && !box.canEncrypt) {
    const why =
      'cannot be saved: no encryption key is configured (admin.encryption or INVOICE_PAYMENTS_ENCRYPTION_KEYS)';
    const errors = Object.fromEntries(secrets.map((name) => [name, [why]]));
    throw adminValidationError(problemsOf(errors, 'no_encryption_key'));
  }
  settings.invalidate(); // judged against what is saved now
  const problems = await checkSettingsUpdate(body, await settings.getEffective(), lookup);
  if (Object.keys(problems).length > 0) throw adminValidationError(problemsOf(problems));
  await settings.update(body);
  return settings.getMasked();
}
