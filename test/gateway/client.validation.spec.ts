import { GatewayModeError, GatewayNetworkError, GatewayValidationError } from '../../src/gateway/errors';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { HostLookup } from '../../src/gateway/gateway.options';
import { validCreateParams } from './fixtures';
import { Harness, startHarness, TOKEN } from './support/harness';

async function caught(call: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await call;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

/** Bad input is refused before sending: the sandbox sees no request and stores nothing. */
describe('GatewayClient input checks (sandbox over HTTP)', () => {
  let h: Harness;
  let client: GatewayClient;

  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.reset();
    client = h.client();
  });
  afterEach(() => expect(h.proxy.apiRequests()).toEqual([]));

  const bad = validCreateParams();
  bad.payment.products[0].quantity = 0;
  bad.payment.dueAt = '2026-02-30';

  it.each<[string, (c: GatewayClient) => Promise<unknown>, string[]]>([
    ['createInvoice', (c) => c.createInvoice(bad), ['payment.dueAt', 'payment.products[0].quantity']],
    ['createInvoice', (c) => c.createInvoice(null as never), ['params']],
    ['listInvoices', (c) => c.listInvoices({ limit: 0, createdTo: '2025-13-01' }), ['limit', 'createdTo']],
    ['changeDueDate', (c) => c.changeDueDate({ invoiceId: 'inv', dueAt: '2026-12-01 10:00:00' }), ['dueAt']],
    ['cancelInvoice', (c) => c.cancelInvoice({ id: '' }), ['id']],
    [
      'refundInvoice',
      (c) => c.refundInvoice({ id: '1', invoiceId: 'a', amountCents: 500, refundableCents: 400 }),
      ['amountCents'],
    ],
    ['refundInvoice', (c) => c.refundInvoice({ id: '1', invoiceId: 'a', amountCents: -1 }), ['amountCents']],
    ['addTrackingCode', (c) => c.addTrackingCode({ invoiceId: ' ', code: 'X' }), ['invoiceId']],
    ['validateWebhookToken', (c) => c.validateWebhookToken(''), ['serviceToken']],
    [
      'resendWebhook',
      (c) => c.resendWebhook({ url: 'nope', events: 'invoice.update', webhook: 'w' }),
      ['url'],
    ],
    ['authenticate', (c) => c.authenticate({ clientId: 'id', clientSecret: '' }), ['clientSecret']],
    ['listConsumers', (c) => c.listConsumers({ limit: 1000 }), ['limit']],
    ['listMediations', (c) => c.listMediations({ page: 0 }), ['page']],
    ['listChargebacks', (c) => c.listChargebacks({ page: 1.5 }), ['page']],
    ['findInvoiceByReferrer', (c) => c.findInvoiceByReferrer(''), ['referrer']],
  ])('%s: refused before sending, naming %j', async (operation, call, fields) => {
    const err = await caught(call(client));
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect(err).toMatchObject({ kind: 'validation', sent: false, operation });
    expect(Object.keys((err as unknown as GatewayValidationError).fields).sort()).toEqual([...fields].sort());
    expect(err.message).toMatch(new RegExp(`^${operation}\\(.*\\): invalid input: .*nothing was sent$`));
  });

  it('iterateInvoices refuses bad filters on the first next()', async () => {
    const iterator = client.iterateInvoices({ limit: 500 });
    await expect(iterator.next()).rejects.toBeInstanceOf(GatewayValidationError);
  });

  it('a bad configuration is refused before sending', async () => {
    const err = await caught(h.client({ baseUrl: 'ftp://x', accessToken: ' ' }).listInvoices());
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect(Object.keys((err as unknown as GatewayValidationError).fields)).toEqual([
      'baseUrl',
      'accessToken',
    ]);
  });

  it('nothing was stored either', async () => {
    await caught(client.createInvoice(bad));
    expect(h.proxy.apiRequests()).toEqual([]);
    const listed = await fetch(`${h.sandbox.url}/invoices`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await listed.json()) as { invoices: unknown[] }).invoices).toEqual([]);
  });
});

describe('resendWebhook guards (§6.6)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  const resend = (c: GatewayClient, url: string) =>
    c.resendWebhook({ url, events: 'invoice.update', webhook: 'default' });
  const lookupTo =
    (...addresses: string[]): HostLookup =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('is refused in production mode, before sending', async () => {
    const err = await caught(resend(h.client({ mode: 'production' }), 'https://example.com/hook'));
    expect(err).toBeInstanceOf(GatewayModeError);
    expect(err).toMatchObject({ kind: 'mode', sent: false });
    expect(err.message).toMatch(/^resendWebhook\(\): webhook resend is for tests only .*blocklist/);
    expect(h.proxy.apiRequests()).toEqual([]);
  });

  it('production mode chosen at runtime (a connection source) is refused too', async () => {
    const c = h.client(
      {},
      { gatewayConfig: async () => ({ baseUrl: h.proxy.url, accessToken: 'x', mode: 'production' }) },
    );
    await expect(resend(c, 'https://example.com/hook')).rejects.toBeInstanceOf(GatewayModeError);
    expect(h.proxy.apiRequests()).toEqual([]);
  });

  describe('against a remote service (base URL not on this machine)', () => {
    const remote = (lookup: HostLookup) =>
      h.client({ baseUrl: 'http://gateway.invalid', lookup, retry: { maxAttempts: 1 } });

    it.each([
      ['plain http', 'http://hooks.example.com/x', lookupTo('93.184.216.34')],
      ['loopback', 'https://hooks.example.com/x', lookupTo('127.0.0.1')],
      [
        'private among public addresses',
        'https://hooks.example.com/x',
        lookupTo('93.184.216.34', '10.1.2.3'),
      ],
      ['link-local', 'https://hooks.example.com/x', lookupTo('169.254.169.254')],
      ['unique-local IPv6', 'https://hooks.example.com/x', lookupTo('fd00::1')],
      ['IPv4-mapped loopback', 'https://hooks.example.com/x', lookupTo('::ffff:127.0.0.1')],
      ['a private IP literal', 'https://192.168.0.10/x', lookupTo()],
      ['an unresolvable host', 'https://nowhere.example/x', lookupTo()],
    ])('refuses %s', async (_name, url, lookup) => {
      const err = await caught(resend(remote(lookup), url));
      expect(err).toBeInstanceOf(GatewayModeError);
      expect(err.sent).toBe(false);
    });

    it('lets an https destination with public addresses through to the network', async () => {
      const err = await caught(
        resend(remote(lookupTo('93.184.216.34', '2606:2800:220:1::1')), 'https://hooks.example.com/x'),
      );
      expect(err).toBeInstanceOf(GatewayNetworkError); // got past the guard; gateway.invalid does not resolve
    });
  });
});
