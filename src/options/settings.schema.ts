import type { GatewayMode } from '../gateway/gateway.options';
import type { PaymentMethod } from '../gateway/types';
import type { WireProfileOverrides } from '../gateway/wire-profile';
import type { InvoicePaymentsModuleOptions } from './options';
import { CHECKOUT, DEFAULT_TIME_ZONE, PAYMENT_METHODS } from './checkout.options';

// The module options an admin may override at runtime, with what only the settings have (kind, label, help);
// the admin API's validation, the settings row mapping and the admin page's form derive from this table.

export { PAYMENT_METHODS };

/** A text in the admin page's two languages. */
export interface AdminText {
  en: string;
  pt: string;
}

type SettingSections = Required<Pick<InvoicePaymentsModuleOptions, 'gateway' | 'checkout' | 'webhooks'>>;

/** A module option as (section, key), checked against the options' declaration (`src/options/options.ts`). */
export type ModuleOptionPath = {
  [S in keyof SettingSections]: readonly [section: S, key: keyof SettingSections[S] & string];
}[keyof SettingSections];

/** `T` is the value's type (a phantom: it types the table, nothing reads it). */
export interface SettingDeclaration<T> {
  /** `secret`: encrypted at rest, never returned; `mode`, `int`, `url`, `text`: kept as is in a column of its name. */
  kind: 'mode' | 'secret' | 'methods' | 'int' | 'url' | 'text' | 'ecommerce' | 'json';
  default: T;
  /** Bounds of an `int`, for the module options and the admin API alike. */
  min?: number;
  max?: number;
  /** The module option it overrides at runtime (a `checkout` one: the checkout reads it). */
  option?: ModuleOptionPath;
  /** Shown in the admin page's collapsed section (set once, usually by whoever installed the store). */
  advanced?: boolean;
  label: AdminText;
  /** `{min}` and `{max}` are filled from the bounds (an `int`'s only). */
  help: AdminText;
  readonly type?: T;
}

/** The value's type given, the rest of the declaration kept as written (for the types below). */
function setting<T>() {
  return <D extends SettingDeclaration<T>>(declaration: D): D & SettingDeclaration<T> => declaration;
}

/** The settings in the order the admin page shows them. */
export const SETTINGS = {
  mode: setting<GatewayMode>()({
    kind: 'mode',
    default: 'sandbox',
    option: ['gateway', 'mode'],
    label: { en: 'Mode', pt: 'Modo' },
    help: {
      en: 'Tests: no customer is charged. Production: real charges.',
      pt: 'Testes: nenhum cliente é cobrado. Produção: cobranças reais.',
    },
  }),
  accessToken: setting<string | null>()({
    kind: 'secret',
    default: null,
    option: ['gateway', 'accessToken'],
    label: { en: "Service's access key", pt: 'Chave de acesso do serviço' },
    help: {
      en: "The access key you copy from the payment service's panel. Stored encrypted; never shown.",
      pt: 'Chave de acesso que você copia do painel do serviço de pagamentos. Fica guardada criptografada e nunca é mostrada.',
    },
  }),
  enabledMethods: setting<PaymentMethod[]>()({
    kind: 'methods',
    default: [...PAYMENT_METHODS],
    option: ['checkout', 'methods'],
    label: { en: 'Payment methods', pt: 'Formas de pagamento' },
    help: { en: 'Ways the customer can choose to pay.', pt: 'Formas que o cliente pode escolher ao pagar.' },
  }),
  dueDays: setting<number>()({
    kind: 'int',
    ...CHECKOUT.dueDays,
    option: ['checkout', 'dueDays'],
    label: { en: 'Due in (days)', pt: 'Prazo de vencimento (dias)' },
    help: {
      en: 'How many days the customer has to pay PIX and bank slips ({min} to {max}).',
      pt: 'Quantos dias o cliente tem para pagar PIX e boleto (de {min} a {max}).',
    },
  }),
  maxInstallments: setting<number>()({
    kind: 'int',
    ...CHECKOUT.maxInstallments,
    option: ['checkout', 'maxInstallments'],
    label: { en: 'Most installments', pt: 'Máximo de parcelas' },
    help: {
      en: 'Most card installments ({min} to {max}).',
      pt: 'Maior número de parcelas no cartão (de {min} a {max}).',
    },
  }),
  baseUrl: setting<string | null>()({
    kind: 'url',
    default: null,
    option: ['gateway', 'baseUrl'],
    advanced: true,
    label: { en: 'Service URL', pt: 'URL do serviço' },
    help: {
      en: "The payment service's address, given by the service (for example https://api.example.com). Change it only if the service asks you to.",
      pt: 'Endereço do serviço de pagamentos, informado pelo serviço (por exemplo https://api.exemplo.com.br). Só mude se o serviço pedir.',
    },
  }),
  publicWebhookUrl: setting<string | null>()({
    kind: 'url',
    default: null,
    option: ['checkout', 'publicWebhookUrl'],
    advanced: true,
    label: { en: 'Address for payment notices', pt: 'Endereço para avisos de pagamento' },
    help: {
      en: "This store's internet address the service calls when a payment changes (for example https://mystore.com/webhooks/invoice-payments).",
      pt: 'Endereço desta loja na internet que o serviço chama quando um pagamento muda (por exemplo https://minhaloja.com.br/webhooks/invoice-payments).',
    },
  }),
  webhookToken: setting<string | null>()({
    kind: 'secret',
    default: null,
    option: ['webhooks', 'merchantToken'],
    advanced: true,
    label: { en: "Password of the service's notices", pt: 'Senha dos avisos do serviço' },
    help: {
      en: "Only if you registered the payment notice by hand in the service's panel: the password you chose there.",
      pt: 'Só se você cadastrou o aviso de pagamentos à mão no painel do serviço: a senha que escolheu lá.',
    },
  }),
  orderUrlTemplate: setting<string | null>()({
    kind: 'text',
    default: null,
    option: ['checkout', 'orderUrlTemplate'],
    advanced: true,
    label: { en: 'Order page', pt: 'Página do pedido' },
    help: {
      en: "The address of the order's page in your store. Where the order number goes, write {display_id}: for example https://mystore.com/orders/{display_id}.",
      pt: 'Endereço da página do pedido na sua loja. Onde entra o número do pedido, escreva {display_id}: por exemplo https://minhaloja.com.br/pedidos/{display_id}.',
    },
  }),
  storeUrlTemplate: setting<string | null>()({
    kind: 'text',
    default: null,
    option: ['checkout', 'storeUrlTemplate'],
    advanced: true,
    label: { en: 'Store page', pt: 'Página da loja' },
    help: {
      en: "Your store's address, shown to the customer on the payment page.",
      pt: 'Endereço da sua loja, mostrado ao cliente na página de pagamento.',
    },
  }),
  timeZone: setting<string>()({
    kind: 'text',
    default: DEFAULT_TIME_ZONE,
    option: ['checkout', 'timeZone'],
    advanced: true,
    label: { en: 'Time zone', pt: 'Fuso horário' },
    help: {
      en: "The store's time zone, used to count the days until a due date. In Brazil usually America/Sao_Paulo.",
      pt: 'Fuso horário da loja, usado para contar os dias até o vencimento. No Brasil, normalmente America/Sao_Paulo.',
    },
  }),
  ecommerce: setting<{ storeId: number; checkout: number } | null>()({
    kind: 'ecommerce',
    default: null,
    option: ['checkout', 'ecommerce'],
    advanced: true,
    label: { en: "Store's identification at the service", pt: 'Identificação da loja no serviço' },
    help: {
      en: 'The store and checkout numbers the service gave you, if it asked (optional).',
      pt: 'Números da loja e do checkout que o serviço deu, se ele pediu (opcional).',
    },
  }),
  wireProfile: setting<WireProfileOverrides | null>()({
    kind: 'json',
    default: null,
    advanced: true,
    label: { en: 'Technical protocol settings', pt: 'Ajustes técnicos do protocolo' },
    help: {
      en: 'Only for whoever integrates the system: adjustments of the message format with the service. Leave empty.',
      pt: 'Só para quem integra o sistema: ajustes do formato das mensagens com o serviço. Deixe em branco.',
    },
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;

/** The settings a store owner may change at runtime; a saved value overrides its option until reset (`null`). */
export type InvoicePaymentsSettingsValues = {
  -readonly [K in SettingName]: (typeof SETTINGS)[K] extends SettingDeclaration<infer T> ? T : never;
};

/** The settings the checkout reads (those that override a checkout option). */
export type CheckoutSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K] extends { option: readonly ['checkout', string] } ? K : never;
}[SettingName];

export const SETTING_LIST = Object.entries(SETTINGS) as Array<[SettingName, SettingDeclaration<unknown>]>;

/** Encrypted at rest, never returned by the admin API. */
export type SecretSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K]['kind'] extends 'secret' ? K : never;
}[SettingName];
export const SECRET_SETTINGS = SETTING_LIST.filter(([, d]) => d.kind === 'secret').map(
  ([n]) => n as SecretSettingName,
);

/** Each setting's own default, where the module options give none. */
export const BUILT_IN_DEFAULTS = Object.fromEntries(
  SETTING_LIST.map(([name, declaration]) => [name, declaration.default]),
) as InvoicePaymentsSettingsValues;

/** The settings' defaults are the module options each setting declares (an empty string counts as unset). */
export function settingsDefaultsOf(
  options: InvoicePaymentsModuleOptions,
): Partial<InvoicePaymentsSettingsValues> {
  const sections = options as unknown as Record<string, Record<string, unknown> | undefined>;
  const defaults: Record<string, unknown> = {};
  for (const [name, { option }] of SETTING_LIST) {
    const value = option ? sections[option[0]]?.[option[1]] : undefined;
    if (value !== undefined && value !== '') defaults[name] = value;
  }
  return defaults as Partial<InvoicePaymentsSettingsValues>;
}
