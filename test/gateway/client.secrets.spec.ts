import { inspect } from 'node:util';
import { GatewayError } from '../../src/gateway/errors';
import { DEFAULT_CLIENT_ID } from '../../src/sandbox';
import { validCreateParams } from './fixtures';
import { Harness, startHarness, TOKEN } from './support/harness';

const SERVICE_TOKEN = 'svc_LEAKCHECK_81b2c3d4e5';
const CLIENT_SECRET = 'cs_LEAKCHECK_a9b8c7d6e5';
const BASIC = Buffer.from(`${DEFAULT_CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
const SECRETS = [TOKEN, SERVICE_TOKEN, CLIENT_SECRET, BASIC, Buffer.from(TOKEN).toString('base64')];

/** Every way an error could be looked at or shipped to a log. */
function views(err: unknown): string[] {
  const e = err as Error;
  return [
    e.message,
    String(e.stack),
    JSON.stringify(e),
    inspect(e, { depth: 20, showHidden: true }),
    inspect((e as { cause?: unknown }).cause, { depth: 20, showHidden: true }),
    String(e),
  ];
}

function expectClean(err: unknown): void {
  expect(err).toBeInstanceOf(GatewayError);
  for (const view of views(err)) for (const secret of SECRETS) expect(view).not.toContain(secret);
  const e = err as unknown as Record<string, unknown>;
  for (const key of ['config', 'request', 'response', 'cause', 'headers']) expect(e[key]).toBeUndefined();
}

async function caught(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

/** A service that echoes whatever secret it was given into its error body: the worst case. */
function echoing(status: number, secret: string) {
  return {
    kind: 'rewrite' as const,
    answer: () => ({
      status,
      body: JSON.stringify({
        success: false,
        error: true,
        code: `code_${secret}`,
        message: `rejected ${secret} (Bearer ${secret})`,
        errors: { [`field.${secret}`]: [`bad value ${secret}`] },
        required_scope: `scope ${secret}`,
      }),
    }),
  };
}

describe('no secret in errors or logs (sandbox over HTTP)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      autoProcessCards: false,
      clients: [{ clientId: DEFAULT_CLIENT_ID, clientSecret: 'the-real-secret', scopes: ['invoice.read'] }],
    });
  });
  afterAll(() => h.close());
  beforeEach(() => h.reset());
  afterEach(() => {
    const log = h.logger.all();
    expect(log.length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(log).not.toContain(secret);
  });

  it.each([401, 403, 404, 409, 422, 429, 500, 200])(
    'an answer %s echoing the access token',
    async (status) => {
      h.proxy.addRule({ match: (r) => r.path === '/invoices', action: echoing(status, TOKEN) });
      const client = h.client({ retry: { maxAttempts: 1 } });
      expectClean(await caught(client.listInvoices()));
      expectClean(await caught(client.createInvoice(validCreateParams())));
      expectClean(await caught(client.cancelInvoice({ id: '1' })));
    },
  );

  it('timeouts, lost connections and refused connections', async () => {
    h.proxy.addRule({ match: (r) => r.method === 'POST', action: { kind: 'hold' }, times: 1 });
    const client = h.client({ timeouts: { createMs: 100 } });
    expectClean(await caught(client.createInvoice(validCreateParams())));
    h.proxy.addRule({ match: (r) => r.method === 'DELETE', action: { kind: 'drop' }, times: 1 });
    expectClean(await caught(client.cancelInvoice({ id: '1' })));
    expectClean(await caught(h.client({ baseUrl: 'http://127.0.0.1:1' }).listInvoices()));
  });

  it('the webhook service token, even when the service echoes it', async () => {
    h.proxy.addRule({ match: (r) => r.method === 'OPTIONS', action: echoing(500, SERVICE_TOKEN) });
    expectClean(await caught(h.client({ retry: { maxAttempts: 2 } }).validateWebhookToken(SERVICE_TOKEN)));
  });

  it('the client secret and its Basic form, even when the service echoes them', async () => {
    const client = h.client();
    expectClean(
      await caught(client.authenticate({ clientId: DEFAULT_CLIENT_ID, clientSecret: CLIENT_SECRET })),
    );
    h.proxy.addRule({ match: (r) => r.path === '/auth/token', action: echoing(401, BASIC) });
    expectClean(
      await caught(client.authenticate({ clientId: DEFAULT_CLIENT_ID, clientSecret: CLIENT_SECRET })),
    );
    h.proxy.addRule({ match: (r) => r.path === '/auth/token', action: echoing(401, CLIENT_SECRET) });
    expectClean(
      await caught(client.authenticate({ clientId: DEFAULT_CLIENT_ID, clientSecret: CLIENT_SECRET })),
    );
  });

  it('input refused locally never repeats the value', async () => {
    const params = validCreateParams();
    params.client.document = TOKEN;
    params.payment.webhook = SERVICE_TOKEN;
    expectClean(await caught(h.client().createInvoice(params)));
    h.logger.debug('a line so the log check has something to read');
  });

  it('the echoed secret is replaced, so the rest of the service message survives', async () => {
    h.proxy.addRule({ match: (r) => r.path === '/invoices', action: echoing(422, TOKEN) });
    const err = (await caught(h.client().cancelInvoice({ id: '9' }))) as GatewayError & {
      fields: Record<string, string[]>;
    };
    expect(err.message).toContain('rejected [redacted] (Bearer [redacted])');
    expect(err.fields).toEqual({ 'field.[redacted]': ['bad value [redacted]'] });
  });
});
