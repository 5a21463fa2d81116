import { InvoiceRecord } from '../../src/index';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, waitFor } from '../checkout/support';
import { CapturingLogger, render } from '../support/capturing-logger';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { ADMIN_KEY, adminAuth, AdminApp, newKey, openAdminDatabase, startAdminApp } from './support';

const A = '/admin/invoice-payments';
const OPTIONS_TOKEN = 'tok_options_LOGCHECK_11112222';
const SAVED_TOKEN = 'tok_saved_LOGCHECK_33334444';
const OPTIONS_HOOK = 'hookopt-LOGCHECK-5555';
const SAVED_HOOK = 'hooksaved-LOGCHECK-6666';
const WRONG_ADMIN_KEY = 'wrong-admin-LOGCHECK-7777';
const REJECTED_TOKEN = 'tok rejected LOGCHECK 8888';

/**
 * A whole flow — admin key mistakes, a refused token, saving secrets, a credential check, checkouts, a payment
 * delivered by webhook with the merchant token, a refund, a resend, a cancel, a service failure and a bad webhook —
 * with all log output captured, and no secret in any of it.
 */
describeEachDatabase('no secret in any log line', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;
  const logger = new CapturingLogger();
  const encryptionKey = newKey();
  const restore: Array<() => void> = [];

  beforeAll(async () => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logger.lines.push(`console.${method} ${args.map(render).join(' ')}`);
      });
      restore.push(() => spy.mockRestore());
    }
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        logger.lines.push(
          `stream ${typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString()}`,
        );
        return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      restore.push(() => (stream.write = original));
    }
    sandbox = await startSandbox({
      tokens: [{ token: SAVED_TOKEN, scopes: [...ALL_SCOPES] }],
      log: (line) => logger.lines.push(`sandbox ${line}`),
    });
    db = await openAdminDatabase(kind);
    app = await startAdminApp(db, sandbox, {
      accessToken: OPTIONS_TOKEN,
      merchantToken: OPTIONS_HOOK,
      admin: { encryption: { keys: { k1: encryptionKey } } },
      logger,
    });
  });
  afterAll(async () => {
    await app.close();
    await sandbox.close();
    await db.destroy();
    restore.forEach((undo) => undo());
  });

  it('runs the flow and logs no secret', async () => {
    const registration = sandbox.controls.registerWebhook({
      url: app.webhookUrl,
      merchant_token: SAVED_HOOK,
    });

    // Admin key mistakes.
    await app.http().get(`${A}/settings`).set('Authorization', `Bearer ${WRONG_ADMIN_KEY}`).expect(401);
    await app.http().get(`${A}/settings`).expect(401);

    // The options' token is refused by the service.
    await expect(app.provider.initiatePayment(checkout(makeOrder(), 'pix'))).rejects.toThrow();
    await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);

    // Saving secrets; a rejected one too.
    await app
      .http()
      .put(`${A}/settings`)
      .set(adminAuth)
      .send({ accessToken: REJECTED_TOKEN, webhookToken: 'bad:hook' })
      .expect(400);
    await app
      .http()
      .put(`${A}/settings`)
      .set(adminAuth)
      .send({ accessToken: SAVED_TOKEN, webhookToken: SAVED_HOOK })
      .expect(200);
    await app.http().get(`${A}/settings`).set(adminAuth).expect(200);
    await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);

    // A checkout, paid, delivered by webhook with the merchant token, refunded, resent.
    const paid = await app.provider.initiatePayment(checkout(makeOrder(), 'pix'));
    await sandbox.controls.pay(paid.data.gatewayId as string);
    const records = db.dataSource.getRepository(InvoiceRecord);
    await waitFor(
      async () => (await records.findOneByOrFail({ id: paid.id })).statusCode === 5,
      15_000,
      'paid',
    );
    await app
      .http()
      .post(`${A}/invoices/${paid.id}/refund`)
      .set(adminAuth)
      .send({ amountCents: 500 })
      .expect(200);
    await app
      .http()
      .post(`${A}/webhooks/resend`)
      .set(adminAuth)
      .send({ url: app.webhookUrl, webhook: registration.id })
      .expect(200);

    // A cancel, a service failure, a bad webhook.
    const open = await app.provider.initiatePayment(checkout(makeOrder(), 'billet'));
    await app.http().post(`${A}/invoices/${open.id}/cancel`).set(adminAuth).expect(200);
    sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 500, times: 3 });
    await app.http().post(`${A}/credentials/check`).set(adminAuth).expect(200);
    sandbox.controls.clearFaults();
    const forged = Buffer.from(`wrong-merchant:${registration.token}`).toString('base64');
    await app
      .http()
      .post('/webhooks/invoice-payments')
      .set('Webhook', registration.id)
      .set('Webhook', forged)
      .send({ event: 'invoice.update', invoice: {} });
    await app.http().post(`${A}/settings/rotate-secrets`).set(adminAuth).expect(200);
    await sandbox.controls.waitForDeliveries();

    const text = logger.lines.join('\n');
    // The capture works: it holds the module's own lines, from several parts.
    expect(text).toMatch(/settings of store "default" saved \(accessToken, webhookToken\)/);
    expect(text).toMatch(/credential check/);
    expect(text).toMatch(/^sandbox /m);
    const secrets = {
      OPTIONS_TOKEN,
      SAVED_TOKEN,
      OPTIONS_HOOK,
      SAVED_HOOK,
      ADMIN_KEY,
      WRONG_ADMIN_KEY,
      REJECTED_TOKEN,
      encryptionKey,
      encryptionKeyHex: Buffer.from(encryptionKey, 'base64').toString('hex'),
      serviceToken: registration.token,
      webhookHeader: Buffer.from(`${SAVED_HOOK}:${registration.token}`).toString('base64'),
      bearerHeader: `Bearer ${SAVED_TOKEN}`,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect([name, text.includes(secret)]).toEqual([name, false]);
    }
  });
});
