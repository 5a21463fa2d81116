import type { INestApplicationContext } from '@nestjs/common';
import { CLOCK } from '../../src/domain/clock';
import { syncMedusaPayments, type MedusaPaymentSessions } from '../../src/medusa/payment-sync';
import type { MedusaWebhookActionResult } from '../../src/medusa/types';
import {
  checkout,
  closeCheckoutScene,
  makeOrder,
  openCheckoutScene,
  type CheckoutScene,
} from '../checkout/support';
import { describeEachDatabase } from '../support/databases';

/**
 * The plugin's sync job (`syncMedusaPayments`) against the module's tables: every session whose invoice was paid
 * while Medusa did not hear it is processed, however many there are beside its page size (`batchSize`).
 */
describeEachDatabase('Medusa payment sync', (kind) => {
  let scene: CheckoutScene;

  beforeAll(async () => {
    scene = await openCheckoutScene(kind);
  });
  afterAll(() => closeCheckoutScene(scene));

  /** A runtime as the sync reads it: the module's database and clock (a new one starts with no cursor). */
  const runtime = () => {
    const services = { dataSource: scene.db.dataSource, clock: scene.shop.app.get(CLOCK) };
    return { get: () => services } as unknown as INestApplicationContext;
  };

  /** Medusa's Payment module as the sync asks it: a session shows a captured payment once it was processed. */
  function medusa(sessions: string[]) {
    const processed: string[] = [];
    const payments: MedusaPaymentSessions = {
      listPaymentSessions: async ({ id }) =>
        id
          .filter((s) => sessions.includes(s))
          .map((s) => ({
            id: s,
            payment: processed.includes(s) ? { id: `pay_${s}`, captured_at: new Date() } : null,
          })),
    };
    const process = async ({ action, data }: Required<MedusaWebhookActionResult>) => {
      expect(action).toBe('captured');
      processed.push(data.session_id);
    };
    return { payments, process, processed };
  }

  it('processes every paid session Medusa does not know in one run, more than a page of them, each once', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 7; i++) {
      const order = makeOrder();
      const session = await scene.shop.provider.initiatePayment(checkout(order, 'pix'));
      await scene.sandbox.controls.pay(session.data.gatewayId as string);
      // Paid as the module learns it without Medusa hearing a webhook (a read-back).
      await scene.shop.provider.retrievePayment({ data: { invoiceRecordId: session.id } });
      sessions.push(order.id);
    }
    const app = runtime();
    const { payments, process, processed } = medusa(sessions);
    // Pages of 3: 3, 3 and 1 (the first run of a process looks 3 days back).
    const first = await syncMedusaPayments(app, payments, process, { batchSize: 3 });
    expect(first).toEqual({ considered: 7, processed: 7, errors: 0 });
    expect([...processed].sort()).toEqual([...sessions].sort());
    // Medusa now shows them captured: the next run processes none again.
    expect(await syncMedusaPayments(app, payments, process, { batchSize: 3 })).toMatchObject({
      processed: 0,
    });
    expect(processed).toHaveLength(7);
  });
});
