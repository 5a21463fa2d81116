import {
  helpOf,
  PAYMENT_METHODS,
  SETTING_LIST,
  type AdminText,
  type SettingName,
} from '../core/settings.schema';

/** One row of the admin page's settings form (`GET …/settings/fields`). */
export interface SettingField {
  name: SettingName;
  /** How the page edits it: `mode`, `methods`, `int`, `url`, `text`, `ecommerce`, `json`; absent for a secret. */
  type?: string;
  secret?: boolean;
  advanced?: boolean;
  min?: number;
  max?: number;
  /** The choices of a `methods` field. */
  options?: readonly string[];
  label: AdminText;
  help: AdminText;
}

/** The settings form as the settings are declared: the page names no setting of its own. */
export function settingFields(): SettingField[] {
  return SETTING_LIST.map(([name, d]) => ({
    name,
    ...(d.secret ? { secret: true } : { type: d.kind }),
    ...(d.advanced ? { advanced: true } : {}),
    ...(d.min !== undefined ? { min: d.min } : {}),
    ...(d.max !== undefined ? { max: d.max } : {}),
    ...(d.kind === 'methods' ? { options: PAYMENT_METHODS } : {}),
    label: d.label,
    help: { en: helpOf(d, 'en'), pt: helpOf(d, 'pt') },
  }));
}
