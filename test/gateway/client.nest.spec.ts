import { HttpModule, HttpService } from '@nestjs/axios';
import { Test } from '@nestjs/testing';
import { GatewayClient } from '../../src/gateway/gateway.client';
import { GATEWAY_CLIENT_OPTIONS, type GatewayClientOptions } from '../../src/gateway/gateway.options';
import { validCreateParams } from './fixtures';
import { CapturingLogger, Harness, startHarness, TOKEN } from './support/harness';

describe('GatewayClient wiring', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ autoProcessCards: false });
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());

  it('is injectable in Nest with GATEWAY_CLIENT_OPTIONS and HttpModule’s HttpService', async () => {
    const options: GatewayClientOptions = {
      baseUrl: h.proxy.url,
      accessToken: TOKEN,
      mode: 'sandbox',
      logger: new CapturingLogger(),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [HttpModule.register({ headers: { 'X-Host-App': 'demo' } })],
      providers: [{ provide: GATEWAY_CLIENT_OPTIONS, useValue: options }, GatewayClient],
    }).compile();
    const client = moduleRef.get(GatewayClient);
    expect(moduleRef.get(HttpService)).toBeDefined();
    const invoice = await client.createInvoice(validCreateParams());
    expect(invoice.status.code).toBe(1);
    const [req] = h.proxy.apiRequests();
    // The host's HttpModule configuration is the one in use.
    expect(req.headers['x-host-app']).toBe('demo');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    await moduleRef.close();
  });

  it("is injectable without HttpModule (its own exchange over Node's http)", async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [
        {
          provide: GATEWAY_CLIENT_OPTIONS,
          useValue: { baseUrl: h.proxy.url, accessToken: TOKEN, mode: 'sandbox' },
        },
        GatewayClient,
      ],
    }).compile();
    h.proxy.reset();
    await expect(moduleRef.get(GatewayClient).credentialStatus()).resolves.toMatchObject({ active: true });
    expect(h.proxy.apiRequests().map((r) => r.headers['user-agent'])).toEqual(['nestjs-invoice-payments']);
    await moduleRef.close();
  });

  it('is constructible outside Nest', async () => {
    const client = new GatewayClient({
      baseUrl: `${h.proxy.url}/`,
      accessToken: TOKEN,
      mode: 'sandbox',
      logger: new CapturingLogger(),
    });
    const page = await client.listInvoices();
    expect(page).toMatchObject({ items: [], page: 1, total: 0 });
    expect(h.proxy.apiRequests()[0].path).toBe('/invoices');
  });
});
