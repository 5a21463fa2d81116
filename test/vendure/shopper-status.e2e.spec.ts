import { waitFor } from '../support/app';
import { driveSystemClock, SAO_PAULO_NOON, ShiftedClock } from '../support/clock';
import { describeEachDatabase } from '../support/databases';
import { cartReadyToPay, CPF, startPayment } from './flows';
import { gqlWith } from './graphql';
import { startVendure, VendureTestEnv } from './support';

jest.setTimeout(120_000);

const VIEW_FIELDS = `
  method state amount currency invoiceNumber renewable orderUrl
  pix { payload image expiresAt }
  billet { line barcode url dueAt }
  card { brand last4 installments }
`;
const INVOICE_PAYMENT = gqlWith(
  `query ($code: String) { invoicePayment(orderCode: $code) { ${VIEW_FIELDS} } }`,
);
const RENEW = gqlWith(
  `mutation ($code: String) { renewInvoicePayment(orderCode: $code) { ${VIEW_FIELDS} } }`,
);

interface View {
  method: string;
  state: string;
  amount: string;
  invoiceNumber: string | null;
  renewable: boolean;
  pix: { payload: string | null; image: string | null; expiresAt: string | null } | null;
}

/** The first GraphQL error of a query that must fail (the testing client's `ClientError` holds the answer). */
async function refusal(query: () => Promise<unknown>): Promise<GraphQLErrorAnswer> {
  const err = await query().then(
    () => null,
    (e: unknown) => e as { response?: { errors?: GraphQLErrorAnswer[] } },
  );
  if (!err?.response?.errors?.[0]) throw new Error('the query was answered, not refused');
  return err.response.errors[0];
}

interface GraphQLErrorAnswer {
  message: string;
  extensions: { code?: string; retryAfterSeconds?: number };
}

/** The shop API's view of the shopper's payment: the session's own order only. */
describeEachDatabase("the shopper's payment in Vendure's shop API", (kind) => {
  let env: VendureTestEnv;
  let restoreClock: () => void;

  beforeAll(async () => {
    // The module and the sandbox read one clock started at noon, whatever the hour CI runs at: a PIX due today is
    // hours from its expiry (in its last 10 minutes it would already be renewable).
    const clock = new ShiftedClock(SAO_PAULO_NOON);
    restoreClock = driveSystemClock(clock);
    // Due today: a renewal then visibly moves the day, to tomorrow at least.
    env = await startVendure(kind, { checkout: { dueDays: 0 }, clock: () => clock.date() });
  });
  afterAll(async () => {
    await env?.close();
    restoreClock?.();
  });

  const view = async (code?: string): Promise<View | null> =>
    (await env.shop.query(INVOICE_PAYMENT, { code })).invoicePayment as View | null;
  const renew = async (code?: string): Promise<View | null> =>
    (await env.shop.query(RENEW, { code })).renewInvoicePayment as View | null;

  it('a guest pays by PIX: the view waits, then shows paid; another customer sees nothing of it', async () => {
    const cart = await cartReadyToPay(env, `status-${kind}@example.com`);
    expect(await view()).toBeNull(); // no invoice yet
    const session = await startPayment(env, { method: 'pix', document: CPF });

    const waiting = await view();
    expect(waiting).toEqual({
      method: 'pix',
      state: 'waiting',
      amount: '134.80',
      currency: 'BRL',
      invoiceNumber: session.invoiceId,
      renewable: false,
      orderUrl: null,
      pix: { payload: session.pix?.payload, image: session.pix?.image, expiresAt: expect.any(String) },
      billet: null,
      card: null,
    });
    expect(await view(cart.code)).toEqual(waiting);

    await env.sandbox.controls.pay(session.invoiceId!);
    // Settled, the order is no longer the session's active one: its code still reaches it.
    await waitFor(async () => (await view(cart.code))?.state === 'paid', 20_000, 'the view shows paid', 250);
    expect(await view(cart.code)).toMatchObject({ state: 'paid', renewable: false, amount: '134.80' });

    // A registered customer's session: the guest's order code is not found, the same as a code that does not exist.
    const { customers } = await env.admin.query(
      gqlWith('query { customers(options: { take: 1 }) { items { emailAddress } } }'),
    );
    const guestToken = env.shop.getAuthToken();
    await env.shop.asUserWithCredentials(customers.items[0].emailAddress, 'test');
    expect(await view(cart.code)).toBeNull();
    expect(await view('NOSUCHORDERCODE0')).toBeNull();
    expect(await view()).toBeNull();
    expect(await renew(cart.code)).toBeNull();
    await expect(view('x'.repeat(65))).rejects.toThrow(/orderCode/);
    await expect(view('ABC\u0000DEF')).rejects.toThrow(/orderCode/);
    await expect(view('')).rejects.toThrow(/orderCode/);
    env.shop.setAuthToken(guestToken);
  });

  it('answers TOO_MANY_REQUESTS with retryAfterSeconds past 120 queries a minute for one session and order', async () => {
    const cart = await cartReadyToPay(env, `rate-${kind}@example.com`);
    await startPayment(env, { method: 'pix', document: CPF });
    for (let i = 0; i < 120; i += 1) expect((await view())?.state).toBe('waiting');
    // docs/vendure.md: "a GraphQL error with extensions.code: TOO_MANY_REQUESTS and retryAfterSeconds".
    for (const code of [undefined, cart.code]) {
      const limited = await refusal(() => view(code));
      expect(limited).toMatchObject({ extensions: { code: 'TOO_MANY_REQUESTS' } });
      expect(limited.extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // Another session, with its own order, has its own allowance.
    await cartReadyToPay(env, `rate-other-${kind}@example.com`);
    await startPayment(env, { method: 'pix', document: CPF });
    expect((await view())?.state).toBe('waiting');
  });

  it('an expired PIX gets a new code through renewInvoicePayment: the view waits again', async () => {
    const cart = await cartReadyToPay(env, `renew-${kind}@example.com`);
    const session = await startPayment(env, { method: 'pix', document: CPF });
    await expect(renew()).rejects.toThrow(/cannot get a new code/);
    await env.sandbox.controls.overdue(session.invoiceId!);
    await waitFor(async () => (await view())?.state === 'expired', 20_000, 'the view shows expired', 250);
    expect(await view(cart.code)).toMatchObject({ state: 'expired', renewable: true });

    const before = env.sandbox.controls.getInvoice(session.invoiceId!)!.dueDay;
    const renewed = await renew();
    expect(renewed).toMatchObject({
      state: 'waiting',
      renewable: false,
      pix: { payload: session.pix?.payload },
    });
    const after = env.sandbox.controls.getInvoice(session.invoiceId!)!.dueDay;
    expect(after > before).toBe(true);
    // The new code expires when its new due day ends (São Paulo is behind UTC: the next day, UTC).
    expect(renewed!.pix!.expiresAt!.slice(0, 10) > after).toBe(true);
  });
});
