import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsTimeZone,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import {
  PAYMENT_METHODS,
  SECRET_SETTINGS,
  SETTING_LIST,
  type SecretSettingName,
  type SettingDeclaration,
} from '../options/settings.schema';
import { adminValidationError, problemsOf } from './admin-problems';
import { IsHttpUrl, IsIntIn, IsOneOf, IsPlainText } from './admin-validators';
import type { HostLookup } from '../gateway/gateway.options';
import { publicHttpsProblem } from '../gateway/webhook-destination';
import { checkWireProfileData } from '../gateway/wire-profile.check';
import { MERCHANT_TOKEN } from '../options/webhooks.options';
import type { SecretBox } from './secret-box';
import type { SettingsUpdate } from './settings-row';
import {
  SettingsConflictError,
  type EffectiveSettings,
  type InvoicePaymentsSettingsService,
  type SettingsCheck,
} from './settings.service';

/** The `ecommerce` columns are 32-bit `integer`s on PostgreSQL. */
const MAX_ECOMMERCE_ID = 2_147_483_647;

class EcommerceDto {
  @IsIntIn(1, MAX_ECOMMERCE_ID)
  storeId!: number;

  @IsIntIn(1, MAX_ECOMMERCE_ID)
  checkout!: number;
}

/** Body of `PUT /settings`: an absent field is left as it is, `null` resets it to the module options' default. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- checked per setting below
export interface UpdateSettingsDto extends SettingsUpdate {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateSettingsDto {}

/** What a kind leaves to the setting: a secret's length and characters. */
const SECRETS: Record<string, [max: number, allowed: RegExp, refused: string]> = {
  // A bearer token has no white space (RFC 6750 b64token); a line break would also split the header.
  accessToken: [2048, /^\S+$/, 'spaces'],
  webhookToken: [256, MERCHANT_TOKEN, 'spaces or ":" (the token separator)'],
};

type Checks = (name: string, declaration: SettingDeclaration<unknown>) => PropertyDecorator[];

/** The checks of each kind of setting, top first as if stacked on the property. */
const CHECKS: Record<SettingDeclaration<unknown>['kind'], Checks> = {
  mode: () => [IsOneOf(['sandbox', 'production'])],
  secret: (name) => {
    const [max, allowed, refused] = SECRETS[name];
    return [
      IsString({ message: `${name} must be a string` }),
      IsPlainText(),
      Length(1, max, { message: `${name} must be 1 to ${max} characters` }),
      Matches(allowed, { message: `${name} must not contain ${refused}` }),
    ];
  },
  methods: (name) => [
    IsArray({ message: `${name} must be a list of ${PAYMENT_METHODS.join(', ')}` }),
    ArrayMinSize(1, { message: `${name} must name at least one method` }),
    ArrayUnique({ message: `${name} must not repeat a method` }),
    IsIn(PAYMENT_METHODS, { each: true, message: `${name} may only hold ${PAYMENT_METHODS.join(', ')}` }),
  ],
  int: (_, { min, max }) => [IsIntIn(min ?? 0, max ?? Number.MAX_SAFE_INTEGER)],
  url: () => [IsHttpUrl()],
  text: (name) => [
    name === 'timeZone'
      ? IsTimeZone({ message: '$property must be an IANA time zone such as America/Sao_Paulo' })
      : IsHttpUrl({ template: true }),
  ],
  ecommerce: () => [ValidateNested(), Type(() => EcommerceDto)],
  // Checked part by part by `checkWireProfileData`.
  json: (name) => [IsObject({ message: `${name} must be an object (wire-profile overrides) or null` })],
};

for (const [name, declaration] of SETTING_LIST) {
  const checks = [IsOptional(), ...CHECKS[declaration.kind](name, declaration)];
  // Bottom up, as stacked decorators register.
  for (const check of checks.reverse()) check(UpdateSettingsDto.prototype, name);
}

/** The admin page's settings form, as the settings are declared (JSON drops an `undefined` key). */
export function settingFields() {
  return SETTING_LIST.map(([name, d]) => {
    const fill = (help: string) => help.replace('{min}', String(d.min)).replace('{max}', String(d.max));
    return {
      name,
      ...(d.kind === 'secret' ? { secret: true } : { type: d.kind as string }),
      advanced: d.advanced,
      min: d.min,
      max: d.max,
      options: d.kind === 'methods' ? PAYMENT_METHODS : undefined,
      label: d.label,
      help: { en: fill(d.help.en), pt: fill(d.help.pt) },
    };
  });
}

/** The settings as the admin API returns them: secrets masked, never their value. */
export type MaskedSettings = Omit<EffectiveSettings, SecretSettingName> &
  Record<SecretSettingName, { set: boolean; last4: string | null; source: 'saved' | 'options' | null }>;

export function maskSettings(settings: EffectiveSettings): MaskedSettings {
  const mask = (name: SecretSettingName): MaskedSettings[SecretSettingName] => {
    const value = settings[name];
    return {
      set: value !== null && value !== '',
      // A short secret would be mostly given away by its last four characters.
      last4: value !== null && value.length >= 16 ? `…${value.slice(-4)}` : null,
      source: value === null ? null : settings.overridden.includes(name) ? 'saved' : 'options',
    };
  };
  // Every secret the schema declares, so a new one is never answered in clear.
  const masked = Object.fromEntries(SECRET_SETTINGS.map((name) => [name, mask(name)]));
  return { ...settings, ...(masked as Pick<MaskedSettings, SecretSettingName>) };
}

/** What a settings change needs: the settings, the key that encrypts secrets, the DNS look-up of production URLs. */
export interface SettingsSaveDeps {
  settings: InvoicePaymentsSettingsService;
  box: SecretBox;
  lookup?: HostLookup;
}

/**
 * Saves a settings change whose fields were checked one by one (`UpdateSettingsDto`), after the checks that need
 * what is saved now or DNS: the admin API's `PUT settings` and Medusa's `POST /admin/invoice-payments/settings` both
 * come here. In production, both URLs must be https to public addresses; a stored token never follows a new
 * `baseUrl`, so the admin key cannot walk it out to an address of its holder's choice. A refusal throws the admin
 * API's 400 (`adminValidationError`), naming each field.
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
  const current = await settings.getEffective();
  const errors: Record<string, string[]> = {};
  if ((body.mode ?? current.mode) === 'production') {
    for (const field of ['baseUrl', 'publicWebhookUrl'] as const) {
      const url = body[field] !== undefined ? body[field] : current[field];
      if (typeof url !== 'string') continue;
      const problem = await publicHttpsProblem(url, lookup);
      if (problem) (errors[field] ??= []).push(`${field} ${problem} (production mode)`);
    }
  }
  if (body.wireProfile) Object.assign(errors, checkWireProfileData(body.wireProfile));
  if (Object.keys(errors).length > 0) throw adminValidationError(problemsOf(errors));
  return maskSettings(await settings.update(body, tokenStaysWithItsHost(body, current.baseUrl)));
}

/**
 * Judged on what the save writes, not on what was read before it: no token reaches a host it was not given for.
 * A new host needs its token in the same save: not the one kept, nor the module options' one that `null` brings
 * back, unless both are then the options' (the deployer's own pair). A save that gives a token, a host or a mode is
 * refused as a conflict if another admin moved the host since it was checked.
 */
function tokenStaysWithItsHost(body: UpdateSettingsDto, checkedHost: string | null): SettingsCheck {
  return (before, after, saved) => {
    const touches = body.accessToken !== undefined || body.baseUrl !== undefined || body.mode !== undefined;
    if (touches && originOf(before.baseUrl) !== originOf(checkedHost)) {
      throw new SettingsConflictError('the service address was changed by someone else meanwhile; try again');
    }
    const newHost = originOf(after.baseUrl) !== originOf(before.baseUrl);
    // Both the options' own: the deployer's pair.
    const options = !saved.includes('baseUrl') && !saved.includes('accessToken');
    if (newHost && after.accessToken && typeof body.accessToken !== 'string' && !options) {
      const problem =
        'is required with a new baseUrl: no saved token, nor the options one, goes to a new host';
      throw adminValidationError(problemsOf({ accessToken: [problem] }));
    }
  };
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
