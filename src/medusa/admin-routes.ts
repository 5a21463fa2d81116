import { BadRequestException } from '@nestjs/common';
import { adminValidationPipe } from '../settings/admin-api';
import { maskSettings, saveSettings, UpdateSettingsDto, type MaskedSettings } from '../settings/settings.dto';
import { SETTING_LIST, type AdminText, type SettingName } from '../options/settings.schema';
import { orderInvoiceViews, type OrderInvoiceView } from '../settings/order-invoices.view';
import { pluginOptions, withSessions, type MedusaRequest, type MedusaResponse } from './plugin';
import { runtimeServices, type MedusaRuntimeServices } from './runtime';

// The plugin's admin API routes in Medusa (Medusa authenticates every `/admin` route): what the order page's widget
// and the Settings → Invoice payments page read. Which status code means what comes from here (the module's status
// table); the admin only words it.

/** One invoice of a Medusa order as the order page's widget shows it (the view Vendure's dashboard reads too). */
export type MedusaOrderInvoiceView = OrderInvoiceView;

/** `GET /admin/invoice-payments/orders/:id`: the invoices of a Medusa order's sessions, newest first (the widget). */
export async function getOrderInvoices(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const id = req.params.id ?? '';
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id))
    return res.status(400).json({ type: 'invalid_data', message: 'id: must be a Medusa order id' });
  const order = await withSessions(req.scope, 'order', id, ['id']);
  if (!order) return res.status(404).json({ type: 'not_found', message: `order ${id} not found` });
  const services = await runtimeServices(pluginOptions(req.scope));
  res.json({ invoices: await orderInvoiceViews(services, order.sessionIds) });
}

/** A setting as the settings page labels it; `option`: where it is set in `medusa-config.ts` (`webhooks.merchantToken`). */
export interface MedusaSettingField {
  name: SettingName;
  kind: string;
  label: AdminText;
  option: string | null;
  /** Set once, usually by whoever installed the store: the page shows it apart. */
  advanced: boolean;
}

/**
 * Something the store needs that is missing or wrong, by the setting it concerns: `error` when customers cannot pay
 * for real, `warning` when the store runs but less safely.
 */
export interface MedusaSettingsWarning {
  code: 'sandbox_in_production' | 'access_token_missing' | 'webhook_token_missing';
  setting: SettingName;
  severity: 'error' | 'warning';
}

/** What `GET /admin/invoice-payments/settings` answers. */
export interface MedusaSettingsView {
  settings: MaskedSettings;
  fields: MedusaSettingField[];
  warnings: MedusaSettingsWarning[];
}

/**
 * What the settings page warns about. Production is Medusa's own: `medusa start` runs with `NODE_ENV=production`
 * unless told otherwise.
 */
export function settingsWarnings(
  settings: MaskedSettings,
  nodeEnv: string | undefined,
): MedusaSettingsWarning[] {
  const warnings: MedusaSettingsWarning[] = [];
  if (settings.mode === 'sandbox' && nodeEnv === 'production')
    warnings.push({ code: 'sandbox_in_production', setting: 'mode', severity: 'error' });
  if (!settings.accessToken.set)
    warnings.push({ code: 'access_token_missing', setting: 'accessToken', severity: 'error' });
  if (!settings.webhookToken.set)
    warnings.push({ code: 'webhook_token_missing', setting: 'webhookToken', severity: 'warning' });
  return warnings;
}

/** The settings in the order the page shows them, with their labels and where each is set. */
export function settingsFields(): MedusaSettingField[] {
  return SETTING_LIST.map(([name, d]) => ({
    name,
    kind: d.kind,
    label: d.label,
    option: d.option?.join('.') ?? null,
    advanced: d.advanced ?? false,
  }));
}

/** The module's effective settings, secrets masked, labelled, with warnings. */
async function settingsView(services: MedusaRuntimeServices): Promise<MedusaSettingsView> {
  const masked = maskSettings(await services.settings.getEffective());
  return {
    settings: masked,
    fields: settingsFields(),
    warnings: settingsWarnings(masked, process.env.NODE_ENV),
  };
}

/** `GET /admin/invoice-payments/settings`: the module's effective settings, secrets masked, labelled, with warnings. */
export async function getInvoicePaymentsSettings(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  res.json(await settingsView(await runtimeServices(pluginOptions(req.scope))));
}

/**
 * `POST /admin/invoice-payments/settings`: saves the settings given, as the module's admin API's `PUT settings` does
 * (an absent field unchanged, `null` back to `medusa-config.ts`; the same checks), and answers as the `GET`. A refusal
 * is a 400 naming each field (`{ code, field, message, errors, problems }`).
 */
export async function postInvoicePaymentsSettings(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const services = await runtimeServices(pluginOptions(req.scope));
  try {
    const body = (await adminValidationPipe().transform(req.body ?? {}, {
      type: 'body',
      metatype: UpdateSettingsDto,
    })) as UpdateSettingsDto;
    const { settings, secretBox: box, gatewayOptions } = services;
    await saveSettings({ settings, box, lookup: gatewayOptions.lookup }, body);
  } catch (err) {
    if (err instanceof BadRequestException) return res.status(400).json(err.getResponse());
    throw err;
  }
  res.json(await settingsView(services));
}
