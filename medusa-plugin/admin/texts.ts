import { useEffect, useState } from 'react';

/** The admin's language (Medusa's dashboard keeps it in localStorage `lng`, e.g. `ptBR`): Portuguese or English. */
export function language(): 'pt' | 'en' {
  const lng = globalThis.localStorage?.getItem('lng') ?? globalThis.navigator?.language ?? 'en';
  return /^pt/i.test(lng) ? 'pt' : 'en';
}

const EN = {
  title: 'Invoice payment',
  failed: 'Could not load the invoice',
  method: { pix: 'PIX', billet: 'Bank slip', card: 'Card' },
  amount: 'Amount',
  paid: 'Paid',
  pixCode: 'PIX copy-and-paste code',
  billetLine: 'Bank slip line',
  billetLink: 'Open the bank slip',
  refunds: 'Refunds',
  refundable: 'Still refundable',
  tracking: 'Tracking code',
  atService: 'at the service',
  notYet: 'not at the service yet',
  alerts: 'Alerts',
  settings: 'Invoice payments',
  settingsNote:
    'The module’s settings as it runs now (secrets masked). They come from the plugin’s options in medusa-config.ts.',
};

const PT: typeof EN = {
  title: 'Pagamento da fatura',
  failed: 'Não foi possível carregar a fatura',
  method: { pix: 'PIX', billet: 'Boleto', card: 'Cartão' },
  amount: 'Valor',
  paid: 'Pago',
  pixCode: 'PIX copia e cola',
  billetLine: 'Linha digitável',
  billetLink: 'Abrir o boleto',
  refunds: 'Estornos',
  refundable: 'Ainda estornável',
  tracking: 'Código de rastreio',
  atService: 'no serviço',
  notYet: 'ainda não enviado ao serviço',
  alerts: 'Alertas',
  settings: 'Pagamentos por fatura',
  settingsNote:
    'As configurações do módulo em uso (segredos mascarados). Vêm das opções do plugin em medusa-config.ts.',
};

export function texts(): typeof EN {
  return language() === 'pt' ? PT : EN;
}

/** Integer cents as money text, by digits (no float arithmetic): `13480` → `R$ 134,80` / `R$ 134.80`. */
export function money(cents: number | null): string {
  if (cents === null) return '—';
  const digits = String(Math.abs(cents)).padStart(3, '0');
  const separator = language() === 'pt' ? ',' : '.';
  return `${cents < 0 ? '-' : ''}R$ ${digits.slice(0, -2)}${separator}${digits.slice(-2)}`;
}

declare const __BACKEND_URL__: string | undefined;

/**
 * GETs one of the plugin's admin routes (`/admin/invoice-payments...`) with the admin's session, from Medusa's API
 * (`admin.backendUrl`, else the admin's own origin): `[body, error]`.
 */
export function useAdminJson<T>(path: string): [T | null, string | null] {
  const [state, setState] = useState<[T | null, string | null]>([null, null]);
  useEffect(() => {
    const base = typeof __BACKEND_URL__ === 'string' && __BACKEND_URL__ !== '/' ? __BACKEND_URL__ : '';
    fetch(`${base.replace(/\/$/, '')}/admin/invoice-payments${path}`, { credentials: 'include' })
      .then(async (res) => (res.ok ? setState([await res.json(), null]) : setState([null, `${res.status}`])))
      .catch((err: Error) => setState([null, err.message]));
  }, [path]);
  return state;
}
