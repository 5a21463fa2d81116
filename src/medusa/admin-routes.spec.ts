import { STATUS_TABLE } from '../domain/status-table';
import { MAX_JSON_DEPTH } from '../gateway/json';
import { maskSettings } from '../settings/settings.dto';
import { BUILT_IN_DEFAULTS } from '../options/settings.schema';
import { postInvoicePaymentsSettings, settingsFields, settingsWarnings } from './admin-routes';
import * as plugin from './plugin';
import * as runtime from './runtime';

// What the Medusa admin's pages are told: how each status is marked (from the one status table), which setting
// is missing, and where each setting is set.

function masked(values: Partial<typeof BUILT_IN_DEFAULTS>) {
  return maskSettings({
    ...BUILT_IN_DEFAULTS,
    ...values,
    storeId: 'default',
    overridden: [],
    updatedAt: null,
  });
}

it('the status table marks paid, waiting or partly refunded as open, refunded or failed as ended, overdue as expired', () => {
  const tones = Object.fromEntries(Object.values(STATUS_TABLE).map((row) => [row.code, row.tone]));
  expect(tones).toEqual({
    1: 'open',
    2: 'open',
    3: 'open',
    4: 'open',
    5: 'paid',
    6: 'ended',
    7: 'open',
    8: 'open',
    9: 'ended',
    10: 'open',
    12: 'ended',
    15: 'expired',
    16: 'ended',
  });
});

it('warns of the sandbox in production and of each missing token, naming the setting', () => {
  expect(settingsWarnings(masked({ mode: 'sandbox' }), 'production')).toEqual([
    { code: 'sandbox_in_production', setting: 'mode', severity: 'error' },
    { code: 'access_token_missing', setting: 'accessToken', severity: 'error' },
    { code: 'webhook_token_missing', setting: 'webhookToken', severity: 'warning' },
  ]);
});

it('warns of nothing when the live service is set up with both tokens, nor of the sandbox outside production', () => {
  const tokens = { accessToken: 'a'.repeat(20), webhookToken: 'merchant-secret' };
  expect(settingsWarnings(masked({ mode: 'production', ...tokens }), 'production')).toEqual([]);
  expect(settingsWarnings(masked({ mode: 'sandbox', ...tokens }), 'development')).toEqual([]);
});

it('labels each setting in both languages and names its option in medusa-config.ts', () => {
  const fields = Object.fromEntries(settingsFields().map((f) => [f.name, f]));
  expect(fields.webhookToken).toMatchObject({
    kind: 'secret',
    option: 'webhooks.merchantToken',
    advanced: true,
    label: { en: "Password of the service's notices", pt: 'Senha dos avisos do serviço' },
  });
  expect(fields.enabledMethods).toMatchObject({ option: 'checkout.methods', advanced: false });
  expect(fields.wireProfile.option).toBeNull();
});

describe('POST /admin/invoice-payments/settings', () => {
  afterEach(() => jest.restoreAllMocks());

  // Audit: the admin pipe handed a deep body to class-transformer, whose recursion overflowed the stack (RangeError).
  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with the admin API's 400 naming body, saving nothing`, async () => {
    const settings = { invalidate: jest.fn(), getEffective: jest.fn(), update: jest.fn() };
    jest.spyOn(plugin, 'pluginOptions').mockReturnValue({} as ReturnType<typeof plugin.pluginOptions>);
    jest
      .spyOn(runtime, 'runtimeServices')
      .mockResolvedValue({ settings, secretBox: { canEncrypt: true }, gatewayOptions: {} } as never);
    const answer: { status?: number; body?: unknown } = {};
    const res: plugin.MedusaResponse = {
      status: (code) => ((answer.status = code), res),
      json: (body) => void (answer.body = body),
    };
    const deep = JSON.parse(`{"wireProfile":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`) as unknown;
    await postInvoicePaymentsSettings(
      { scope: {} as plugin.MedusaRequest['scope'], params: {}, body: deep },
      res,
    );
    expect(answer).toMatchObject({ status: 400, body: { code: 'invalid', field: 'body' } });
    expect(Object.keys((answer.body as { errors: object }).errors)).toEqual(['body']);
    expect(settings.getEffective).not.toHaveBeenCalled();
    expect(settings.update).not.toHaveBeenCalled();
  });
});
