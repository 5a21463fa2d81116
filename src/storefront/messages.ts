import type { PaymentState } from './types.js';

/** Every text the shopper reads, in Portuguese (the default) and English. */
export interface Messages {
  state: Record<PaymentState, string>;
  stateNote: Partial<Record<PaymentState, string>>;
  loading: string;
  amount: string;
  pixScan: string;
  pixCode: string;
  qrAlt: string;
  copy: string;
  copied: string;
  copyFailed: string;
  expiresIn: (time: string) => string;
  validUntil: (when: string) => string;
  renew: string;
  renewing: string;
  renewFailed: string;
  renewAtStore: string;
  billetLine: string;
  barcode: string;
  dueAt: string;
  slipLink: string;
  billetNote: string;
  cardPaid: (brand: string, last4: string, installments: number) => string;
  cardTitle: string;
  holderName: string;
  cardNumber: string;
  expiry: string;
  expiryHint: string;
  cvv: string;
  installments: string;
  installment: (count: number, each: string, first: string | null) => string;
  payCard: (amount: string) => string;
  paying: string;
  fieldRequired: string;
  fieldInvalid: Record<'number' | 'holder' | 'expiry' | 'cvv', string>;
  declined: string;
  payError: string;
  retry: string;
  orderLink: string;
  notFound: string;
  connection: string;
  cardUnavailable: string;
}

const pt: Messages = {
  state: {
    waiting: 'Aguardando pagamento',
    processing: 'Processando pagamento',
    paid: 'Pagamento confirmado',
    expired: 'Código PIX expirado',
    canceled: 'Pagamento cancelado',
    failed: 'Pagamento não aprovado',
    refunded: 'Pagamento estornado',
  },
  stateNote: {
    paid: 'Obrigado! Já recebemos seu pagamento.',
    canceled: 'Este pagamento foi cancelado. Nada foi cobrado.',
    failed: 'O pagamento não foi aprovado. Nada foi cobrado.',
    refunded: 'O valor foi devolvido para você.',
  },
  loading: 'Carregando pagamento…',
  amount: 'Valor',
  pixScan: 'Abra o app do seu banco, escolha Pix e leia o QR code ou use o Pix Copia e Cola.',
  pixCode: 'Pix Copia e Cola',
  qrAlt: 'QR code do Pix',
  copy: 'Copiar código',
  copied: 'Copiado',
  copyFailed: 'Não foi possível copiar. Selecione o código e copie manualmente.',
  expiresIn: (time) => `Expira em ${time}`,
  validUntil: (when) => `Válido até ${when}`,
  renew: 'Gerar novo código PIX',
  renewing: 'Gerando novo código…',
  renewFailed: 'Não foi possível gerar um novo código agora. Tente novamente em instantes.',
  renewAtStore: 'Volte à loja para gerar um novo pagamento.',
  billetLine: 'Linha digitável',
  barcode: 'Código de barras do boleto',
  dueAt: 'Vencimento',
  slipLink: 'Abrir boleto',
  billetNote: 'Confirmaremos seu pedido assim que o banco compensar o boleto (até 3 dias úteis).',
  cardPaid: (brand, last4, n) => `${brand} final ${last4}${n > 1 ? `, em ${n} parcelas` : ''}`,
  cardTitle: 'Cartão de crédito',
  holderName: 'Nome impresso no cartão',
  cardNumber: 'Número do cartão',
  expiry: 'Validade',
  expiryHint: 'MM/AA',
  cvv: 'CVV',
  installments: 'Parcelas',
  installment: (n, each, first) =>
    n === 1 ? `À vista, ${each}` : first ? `${n}x: 1 de ${first} e ${n - 1} de ${each}` : `${n}x de ${each}`,
  payCard: (amount) => `Pagar ${amount}`,
  paying: 'Processando…',
  fieldRequired: 'Preencha este campo.',
  fieldInvalid: {
    number: 'Número de cartão inválido.',
    holder: 'Informe o nome como está no cartão.',
    expiry: 'Validade inválida ou vencida (MM/AA).',
    cvv: 'O código tem 3 ou 4 dígitos.',
  },
  declined: 'O banco emissor recusou o pagamento. Confira os dados ou use outro cartão.',
  payError: 'Não conseguimos processar o pagamento agora. Nada foi cobrado. Tente novamente.',
  retry: 'Tentar novamente',
  orderLink: 'Ver meu pedido',
  notFound: 'Pagamento não encontrado. Volte à loja e tente de novo.',
  connection: 'Sem conexão com a loja. Tentando de novo…',
  cardUnavailable: 'Pagamento com cartão indisponível nesta página.',
};

const en: Messages = {
  state: {
    waiting: 'Awaiting payment',
    processing: 'Processing payment',
    paid: 'Payment confirmed',
    expired: 'PIX code expired',
    canceled: 'Payment canceled',
    failed: 'Payment not approved',
    refunded: 'Payment refunded',
  },
  stateNote: {
    paid: 'Thank you! We have received your payment.',
    canceled: 'This payment was canceled. Nothing was charged.',
    failed: 'The payment was not approved. Nothing was charged.',
    refunded: 'The amount was returned to you.',
  },
  loading: 'Loading payment…',
  amount: 'Amount',
  pixScan: "Open your bank's app, choose Pix and scan the QR code, or use Pix Copy and Paste.",
  pixCode: 'Pix Copy and Paste',
  qrAlt: 'Pix QR code',
  copy: 'Copy code',
  copied: 'Copied',
  copyFailed: 'Could not copy. Select the code and copy it by hand.',
  expiresIn: (time) => `Expires in ${time}`,
  validUntil: (when) => `Valid until ${when}`,
  renew: 'Get a new PIX code',
  renewing: 'Getting a new code…',
  renewFailed: 'A new code could not be made right now. Please try again in a moment.',
  renewAtStore: 'Go back to the store to start a new payment.',
  billetLine: 'Digitable line',
  barcode: 'Bank slip barcode',
  dueAt: 'Due date',
  slipLink: 'Open bank slip',
  billetNote: "We'll confirm your order when the bank clears the slip (up to 3 business days).",
  cardPaid: (brand, last4, n) => `${brand} ending ${last4}${n > 1 ? `, in ${n} installments` : ''}`,
  cardTitle: 'Credit card',
  holderName: 'Name on card',
  cardNumber: 'Card number',
  expiry: 'Expiry',
  expiryHint: 'MM/YY',
  cvv: 'CVV',
  installments: 'Installments',
  installment: (n, each, first) =>
    n === 1
      ? `Pay in full, ${each}`
      : first
        ? `${n}x: 1 of ${first} and ${n - 1} of ${each}`
        : `${n}x of ${each}`,
  payCard: (amount) => `Pay ${amount}`,
  paying: 'Processing…',
  fieldRequired: 'Please fill in this field.',
  fieldInvalid: {
    number: 'Invalid card number.',
    holder: 'Enter the name as printed on the card.',
    expiry: 'Invalid or past expiry date (MM/YY).',
    cvv: 'The code has 3 or 4 digits.',
  },
  declined: 'Your card issuer declined the payment. Check the details or use another card.',
  payError: 'We could not process the payment right now. Nothing was charged. Please try again.',
  retry: 'Try again',
  orderLink: 'View my order',
  notFound: 'Payment not found. Go back to the store and try again.',
  connection: 'No connection to the store. Trying again…',
  cardUnavailable: 'Card payment is not available on this page.',
};

/** `en`, `en-US`... → English; anything else → Portuguese. */
export function messagesFor(lang: string | null): { locale: string; m: Messages } {
  return lang && /^en\b/i.test(lang) ? { locale: 'en', m: en } : { locale: 'pt-BR', m: pt };
}
