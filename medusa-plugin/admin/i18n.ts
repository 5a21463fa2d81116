import { useTranslation } from 'react-i18next';
import { localeTag } from './format.js';

// The plugin's words in Medusa's admin, as Medusa's own: its i18next resources, merged into the admin's under the key
// `invoicePayments` (the plugin's `i18nModule`), read with `useTranslation` in the admin's language (the user's
// language setting: the `lng` cookie, then localStorage). Languages without these words fall back to English, as
// Medusa's own do. Only words live here: which status code means what comes from the API (the module's status table).

const en = {
  title: 'Invoice payment',
  failed: 'Could not load the invoice',
  amount: 'Amount',
  paid: 'Paid',
  invoiceNumber: 'Invoice number',
  dueDate: 'Due date',
  card: 'Card',
  installments: '{{n}} installments',
  pixCode: 'PIX copy-and-paste code',
  billetLine: 'Bank slip line',
  billetLink: 'Open the bank slip',
  refunds: 'Refunds',
  refundable: 'Still refundable',
  tracking: 'Tracking code',
  atService: 'at the service',
  notYet: 'not at the service yet',
  alerts: 'Alerts',
  /** An alert's kind (the module's `InvoicePaymentsAlert['kind']`), as the module's admin page names it. */
  alert: {
    paid_after_cancel: 'Paid after cancel',
    amount_mismatch: 'Amount mismatch',
    webhook_dead_letter: 'Failed webhook',
    duplicate_paid: 'Order paid twice',
    creation_unresolved: 'Creation unanswered',
    invoice_number_clash: 'Invoice number repeated',
    foreign_invoice: 'Invoice not sent by this store',
    tracking_failed: 'Tracking not sent',
    implausible_amount: 'Implausible amount',
    refund_unresolved: 'Refund unanswered',
    captured_amount_changed: 'Paid amount changed',
  },
  method: { pix: 'PIX', billet: 'Bank slip', card: 'Card' },
  status: {
    1: 'Awaiting payment',
    2: 'Processing',
    3: 'Payment scheduled',
    4: 'Authorized',
    5: 'Paid',
    6: 'Canceled',
    7: 'Awaiting refund',
    8: 'Partially refunded',
    9: 'Refunded',
    10: 'Contested',
    12: 'Payment denied',
    15: 'Overdue',
    16: 'Payment error',
    unknown: 'Code {{code}}',
    none: 'Being created',
  },
  refundState: {
    pending: 'Being sent',
    unknown: 'Being confirmed',
    succeeded: 'Refunded',
    failed: 'Not refunded',
  },
  settings: {
    title: 'Invoice payments',
    note: 'What the module runs with now. The values come from the plugin’s options in medusa-config.ts: change them there and restart Medusa.',
    advanced: 'Advanced',
    setIn: 'medusa-config.ts: {{option}}',
    savedHere: 'Saved in the module’s settings (overrides medusa-config.ts)',
    secretSet: 'Set',
    secretSetLast4: 'Set •••• {{last4}}',
    notSet: 'Not set',
    mode: { sandbox: 'Tests (sandbox)', production: 'Production' },
    day: '1 day',
    days: '{{n}} days',
    upTo: 'Up to {{n}}x',
    ecommerce: 'Store {{storeId}}, checkout {{checkout}}',
    profileDefault: 'Standard',
    profileCustom: 'Adjusted ({{keys}})',
    updatedAt: 'Last changed',
    neverChanged: 'Never changed here: everything comes from medusa-config.ts',
    whereToChange: 'Where to change it',
    howTitle: 'How to change these settings',
    howText:
      'In medusa-config.ts, the options you give the plugin and its provider (one object for both), then restart Medusa. The package’s docs/medusa.md (“Register the plugin and the provider”) and docs/configuration.md list every option.',
    warning: {
      sandbox_in_production:
        'Test mode in production: the service’s sandbox charges no one, so no order of this store is paid for real. Set {{option}} to "production", with the live service’s address and access key.',
      access_token_missing:
        'The service’s access key is not set: no invoice can be created. Set {{option}} in medusa-config.ts.',
      webhook_token_missing:
        'The password of the service’s notices is not set: a notice is accepted on the service’s token alone. Register the notice in the service’s panel with a password and set it as {{option}} (docs/webhook-security.md, “Safest setup”).',
    },
  },
};

const pt: typeof en = {
  title: 'Pagamento da fatura',
  failed: 'Não foi possível carregar a fatura',
  amount: 'Valor',
  paid: 'Pago',
  invoiceNumber: 'Número da fatura',
  dueDate: 'Vencimento',
  card: 'Cartão',
  installments: '{{n}} parcelas',
  pixCode: 'PIX copia e cola',
  billetLine: 'Linha digitável',
  billetLink: 'Abrir o boleto',
  refunds: 'Reembolsos',
  refundable: 'Ainda reembolsável',
  tracking: 'Código de rastreio',
  atService: 'no serviço',
  notYet: 'ainda não enviado ao serviço',
  alerts: 'Alertas',
  alert: {
    paid_after_cancel: 'Pago após cancelamento',
    amount_mismatch: 'Valor divergente',
    webhook_dead_letter: 'Webhook com falha',
    duplicate_paid: 'Pedido pago duas vezes',
    creation_unresolved: 'Criação sem resposta',
    invoice_number_clash: 'Número de fatura repetido',
    foreign_invoice: 'Fatura não enviada por esta loja',
    tracking_failed: 'Rastreio não enviado',
    implausible_amount: 'Valor implausível',
    refund_unresolved: 'Reembolso sem resposta',
    captured_amount_changed: 'Valor pago alterado',
  },
  method: { pix: 'PIX', billet: 'Boleto', card: 'Cartão' },
  status: {
    1: 'Aguardando pagamento',
    2: 'Em processamento',
    3: 'Pagamento agendado',
    4: 'Autorizado',
    5: 'Pago',
    6: 'Cancelado',
    7: 'Aguardando reembolso',
    8: 'Parcialmente reembolsado',
    9: 'Reembolsado',
    10: 'Contestado',
    12: 'Pagamento negado',
    15: 'Vencido',
    16: 'Erro no pagamento',
    unknown: 'Código {{code}}',
    none: 'Em criação',
  },
  refundState: {
    pending: 'Enviando',
    unknown: 'Em confirmação',
    succeeded: 'Reembolsado',
    failed: 'Não reembolsado',
  },
  settings: {
    title: 'Pagamentos por fatura',
    note: 'Com o que o módulo está funcionando agora. Os valores vêm das opções do plugin no medusa-config.ts: altere-os lá e reinicie o Medusa.',
    advanced: 'Avançado',
    setIn: 'medusa-config.ts: {{option}}',
    savedHere: 'Salvo nas configurações do módulo (vale sobre o medusa-config.ts)',
    secretSet: 'Definido',
    secretSetLast4: 'Definido •••• {{last4}}',
    notSet: 'Não definido',
    mode: { sandbox: 'Testes (sandbox)', production: 'Produção' },
    day: '1 dia',
    days: '{{n}} dias',
    upTo: 'Até {{n}}x',
    ecommerce: 'Loja {{storeId}}, checkout {{checkout}}',
    profileDefault: 'Padrão',
    profileCustom: 'Ajustado ({{keys}})',
    updatedAt: 'Última alteração',
    neverChanged: 'Nunca alterado aqui: tudo vem do medusa-config.ts',
    whereToChange: 'Onde alterar',
    howTitle: 'Como alterar estas configurações',
    howText:
      'No medusa-config.ts, nas opções que você passa ao plugin e ao provedor (um só objeto para os dois); depois reinicie o Medusa. O docs/medusa.md do pacote (“Register the plugin and the provider”) e o docs/configuration.md listam todas as opções.',
    warning: {
      sandbox_in_production:
        'Modo de testes em produção: o sandbox do serviço não cobra ninguém, então nenhum pedido desta loja é pago de verdade. Defina {{option}} como "production", com o endereço e a chave de acesso do serviço real.',
      access_token_missing:
        'A chave de acesso do serviço não está definida: nenhuma fatura pode ser criada. Defina {{option}} no medusa-config.ts.',
      webhook_token_missing:
        'A senha dos avisos do serviço não está definida: um aviso é aceito só com o token do serviço. Cadastre o aviso no painel do serviço com uma senha e defina-a em {{option}} (docs/webhook-security.md, “Safest setup”).',
    },
  },
};

/** The plugin's `i18nModule.resources`: merged into Medusa's admin translations. */
export const resources = {
  en: { translation: { invoicePayments: en } },
  ptBR: { translation: { invoicePayments: pt } },
  ptPT: { translation: { invoicePayments: pt } },
};

/** The settings page's title key, for the settings menu (Medusa translates a menu item's label by its key). */
export const SETTINGS_TITLE_KEY = 'invoicePayments.settings.title';

/** The plugin's words in the admin's language (`t('status.5')`) and the language as a BCP 47 tag (`pt-BR`). */
export function useTexts(): { t: (key: string, values?: Record<string, unknown>) => string; tag: string } {
  const { t, i18n } = useTranslation();
  return {
    t: (key, values) => String(t(`invoicePayments.${key}`, values ?? {})),
    tag: localeTag(i18n.language),
  };
}
