import { runInNewContext } from 'node:vm';
import { startSandbox, TEST_CARDS, type SandboxServer } from '../../src/sandbox';

/**
 * The service's client-side card script as the sandbox serves it (A12): the script's own function, run against the
 * sandbox the way a shopper's browser runs it (its `document.currentScript` and `fetch`), and the endpoint's CORS.
 */
describe('sandbox: the card tokenization script (A12)', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  /** Loads `/js/card.js` into a browser-like global and answers its function. */
  async function loadScript(): Promise<(card: object) => Promise<Record<string, string>>> {
    const res = await fetch(`${sandbox.url}/js/card.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const window: Record<string, unknown> = {};
    const src = `${sandbox.url}/js/card.js`;
    runInNewContext(await res.text(), {
      window,
      document: { currentScript: { src } },
      location: { href: 'http://shop.example/checkout' },
      URL,
      fetch,
    });
    return window.invoicePaymentsTokenizeCard as never;
  }

  const card = { number: TEST_CARDS.approved, holderName: 'Ana Souza', expiry: '12/30', cvv: '123' };

  it('tokenizes a card on the script origin and keeps brand and last four digits only', async () => {
    const tokenize = await loadScript();
    const answer = await tokenize(card);
    expect(answer).toEqual({
      token: expect.stringMatching(/^tok_[0-9a-f]{32}$/),
      brand: 'visa',
      last4: '1111',
    });
  });

  it('rejects with the service code and the refused fields', async () => {
    const tokenize = await loadScript();
    await expect(tokenize({ ...card, number: '4111111111111112', cvv: '12' })).rejects.toMatchObject({
      code: 'validation_error',
      fields: expect.arrayContaining(['cvv', 'number']),
    });
  });

  it('answers a preflight from any origin and carries CORS on errors', async () => {
    const pre = await fetch(`${sandbox.url}/card-tokens`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://shop.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/content-type/i);
    const bad = await fetch(`${sandbox.url}/card-tokens`, { method: 'POST', body: 'not json' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });
});
