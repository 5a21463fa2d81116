import { randomUUID } from 'node:crypto';
import { ClaimInput, insertNextAttempt } from '../../src/core/attempt-claim';
import { mintStatusToken } from '../../src/checkout/status-token';
import { runStatement } from '../../src/persistence/dialect';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { insertInvoiceRecord } from '../core/fixtures';
import { openCheckoutDatabase } from './support';

/** The claim of an order's next attempt: its number and referrer, and when it is refused. */
describeEachDatabase('checkout: claiming an attempt', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const input = (orderId: string, namespace = ''): ClaimInput => ({
    orderId,
    reference: orderId,
    method: 'pix',
    currency: 'BRL',
    amountCents: 1_000,
    installments: 1,
    namespace,
    settlesAt: new Date(Date.now() + 60_000),
    statusTokenHash: mintStatusToken().hash,
  });
  const claim = (claimInput: ClaimInput) =>
    runStatement(db.dataSource, (em) =>
      insertNextAttempt(em, db.dataSource, randomUUID(), claimInput, new Date()),
    );

  it("gives a new order attempt 1 with the referrer's number 1", async () => {
    const orderId = `order-${randomUUID()}`;
    expect(await claim(input(orderId, 'ns'))).toMatchObject({ attempt: 1, referrer: `ns:${orderId}-1` });
  });

  it('numbers on from the last attempt even when the referrer prefix changed since (another namespace)', async () => {
    const orderId = `order-${randomUUID()}`;
    // Attempt 1 was made under an earlier namespace and is closed: its referrer does not block `new:<order>-1`.
    await insertInvoiceRecord(db.dataSource, {
      orderId,
      openOrderId: null,
      attempt: 1,
      referrer: `old:${orderId}-1`,
      creationState: 'failed',
      gatewayId: null,
    });
    expect(await claim(input(orderId, 'new'))).toMatchObject({ attempt: 2, referrer: `new:${orderId}-2` });
  });

  it('claims nothing while the order has an open attempt', async () => {
    const orderId = `order-${randomUUID()}`;
    expect(await claim(input(orderId))).toMatchObject({ attempt: 1 });
    expect(await claim(input(orderId))).toBeNull();
  });
});
