import { randomUUID } from 'node:crypto';
import { describeEachDatabase } from '../support/databases';
import { closeDeliveryScene, DeliveryScene, openDeliveryScene, postDelivery, tokenLine } from './support';

/**
 * A delivery the intake takes must be one the inbox can store: a `status.code` past PostgreSQL's `integer` (a safe
 * integer to JavaScript) is an unreadable body (400), never a failed INSERT answered 500.
 */
describeEachDatabase('a delivery status code past the integer column', (kind) => {
  let scene: DeliveryScene;

  beforeAll(async () => {
    scene = await openDeliveryScene(kind);
  });
  afterAll(() => closeDeliveryScene(scene));

  it('is refused as a bad body, not answered 500', async () => {
    const { app, invoice, serviceToken } = scene;
    const answer = await postDelivery(
      app.url,
      '/webhooks/invoice-payments',
      {
        event: 'invoice.update',
        delivery_id: randomUUID(),
        invoice: { ...invoice, status: { ...invoice.status, code: 2_147_483_648 } },
      },
      ['default', tokenLine('', serviceToken)],
    );
    expect(answer.status).toBeLessThan(500);
  });
});
