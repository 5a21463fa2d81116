import type { CreateOrderDto, PayOrderDto, ShipOrderDto } from './order.dto';
import type { OrderView, PaymentView } from './views';

/** An HTTP answer outside 2xx, with what the server said. */
export class HttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${method} ${path} answered ${status}: ${describe(body)}`);
    this.name = 'HttpError';
  }
}

/** One webhook delivery as the sandbox's log shows it (the fields the walkthrough prints). */
export interface SandboxDelivery {
  deliveryId: string;
  event: string;
  url: string;
  invoiceId: string | null;
  statusCode: number | null;
  state: string;
  attempts: Array<{ status: number | null; error: string | null }>;
}

/** The sandbox's stored invoice (`GET /_sandbox/invoices/:id`), reduced to what the walkthrough checks. */
export interface SandboxInvoice {
  id: string;
  statusCode: number;
  tracking: { code: string; carrier: string | null; url: string | null } | null;
  refunds: Array<{ amountCents: number; completed: boolean }>;
}

/**
 * What a storefront, a store admin and a tester do over HTTP: the walkthrough uses nothing else, so it shows the
 * store exactly as its clients see it.
 */
export class StoreClient {
  constructor(
    private readonly storeUrl: string,
    private readonly sandboxUrl: string,
    private readonly adminKey: string,
  ) {}

  createOrder(body: CreateOrderDto): Promise<OrderView> {
    return this.call('POST', this.storeUrl, '/store/orders', body);
  }

  getOrder(id: string): Promise<OrderView> {
    return this.call('GET', this.storeUrl, `/store/orders/${encodeURIComponent(id)}`);
  }

  pay(id: string, body: PayOrderDto): Promise<{ order: OrderView; payment: PaymentView }> {
    return this.call('POST', this.storeUrl, `/store/orders/${encodeURIComponent(id)}/payment`, body);
  }

  ship(id: string, body: ShipOrderDto): Promise<OrderView> {
    return this.call('POST', this.storeUrl, `/admin/orders/${encodeURIComponent(id)}/ship`, body, true);
  }

  refund(id: string, amount?: number): Promise<OrderView> {
    const body = amount === undefined ? {} : { amount };
    return this.call('POST', this.storeUrl, `/admin/orders/${encodeURIComponent(id)}/refund`, body, true);
  }

  cancel(id: string): Promise<OrderView> {
    return this.call('POST', this.storeUrl, `/admin/orders/${encodeURIComponent(id)}/cancel`, {}, true);
  }

  /** The sandbox's client-side tokenization stand-in (A12): card number in, token out. */
  cardToken(input: {
    number: string;
    holder: string;
    expiry: string;
  }): Promise<{ token: string; last4: string }> {
    return this.call('POST', this.sandboxUrl, '/_sandbox/card-tokens', input);
  }

  /** The customer pays the invoice at the (sandbox) service. */
  async sandboxPay(invoiceNumber: string): Promise<void> {
    await this.call(
      'POST',
      this.sandboxUrl,
      `/_sandbox/invoices/${encodeURIComponent(invoiceNumber)}/pay`,
      {},
    );
  }

  async sandboxInvoice(invoiceNumber: string): Promise<SandboxInvoice> {
    const answer = await this.call<{ record: SandboxInvoice }>(
      'GET',
      this.sandboxUrl,
      `/_sandbox/invoices/${encodeURIComponent(invoiceNumber)}`,
    );
    return answer.record;
  }

  async sandboxDeliveries(): Promise<SandboxDelivery[]> {
    const answer = await this.call<{ deliveries: SandboxDelivery[] }>(
      'GET',
      this.sandboxUrl,
      '/_sandbox/deliveries',
    );
    return answer.deliveries;
  }

  private async call<T>(
    method: string,
    base: string,
    path: string,
    body?: unknown,
    admin = false,
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (admin) headers.Authorization = `Bearer ${this.adminKey}`;
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const parsed: unknown = text === '' ? null : safeJson(text);
    if (!res.ok) throw new HttpError(method, path, res.status, parsed);
    return parsed as T;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body) {
    const message = (body as { message: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message);
  }
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body);
}
