import { useEffect, useState } from 'react';

/** The admin's language (Medusa's dashboard keeps it in localStorage `lng`, e.g. `ptBR`): Portuguese or English. */
export function language(): 'pt' | 'en' {
  const lng = globalThis.localStorage?.getItem('lng') ?? globalThis.navigator?.language ?? 'en';
  return /^pt/i.test(lng) ? 'pt' : 'en';
}

/** Each text in English and in Portuguese. */
const TEXTS = {
  title: ['Invoice payment', 'Pagamento da fatura'],
  failed: ['Could not load the invoice', 'Não foi possível carregar a fatura'],
  amount: ['Amount', 'Valor'],
  paid: ['Paid', 'Pago'],
  pixCode: ['PIX copy-and-paste code', 'PIX copia e cola'],
  billetLine: ['Bank slip line', 'Linha digitável'],
  billetLink: ['Open the bank slip', 'Abrir o boleto'],
  refunds: ['Refunds', 'Estornos'],
  refundable: ['Still refundable', 'Ainda estornável'],
  tracking: ['Tracking code', 'Código de rastreio'],
  atService: ['at the service', 'no serviço'],
  notYet: ['not at the service yet', 'ainda não enviado ao serviço'],
  alerts: ['Alerts', 'Alertas'],
  settings: ['Invoice payments', 'Pagamentos por fatura'],
  settingsNote: [
    'The module’s settings as it runs now (secrets masked). They come from the plugin’s options in medusa-config.ts.',
    'As configurações do módulo em uso (segredos mascarados). Vêm das opções do plugin em medusa-config.ts.',
  ],
  pix: ['PIX', 'PIX'],
  billet: ['Bank slip', 'Boleto'],
  card: ['Card', 'Cartão'],
} as const;

export function texts(): Record<keyof typeof TEXTS, string> {
  const n = language() === 'pt' ? 1 : 0;
  return Object.fromEntries(Object.entries(TEXTS).map(([key, pair]) => [key, pair[n]])) as never;
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
