import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { OrderNotPaidError, ShipmentValidationError } from '../../src/domain/shipping.errors';
import { describeEachDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { openShippingScene, ShippingApp, TOKEN } from './support';

describeEachDatabase('shipping: tracking codes reach the service', (kind) => {
  const scene = openShippingScene(kind);
  let app: ShippingApp;

  beforeAll(async () => {
    app = await scene.start();
  });
  afterEach(async () => {
    await app.worker.stop();
    scene.h.sandbox.controls.clearFaults();
  });

  const rows = (orderId: string) =>
    scene.db.dataSource.getRepository(TrackingOutbox).find({ where: { orderId } });
  const requestsFor = (invoiceId: string) =>
    scene.h.trackingRequests().filter((r) => r.invoiceId === invoiceId);
  const atSandbox = (gatewayId: string) => scene.h.sandbox.controls.getInvoice(gatewayId)?.tracking ?? null;

  it('happy path: the shipment event → outbox → worker → the service holds the code, once', async () => {
    const { orderId, record } = await scene.order();
    app.worker.start();
    await app.emitter.emitAsync('order.shipment_created', {
      orderId,
      trackingCode: 'BR123456789BR',
      carrier: 'Correios',
      trackingUrl: 'https://rastreamento.correios.com.br/app/index.php?objetos=BR123456789BR',
    });
    await waitFor(() => app.posted.some((e) => e.orderId === orderId), 15_000, 'TrackingPosted');

    expect(atSandbox(record.gatewayId!)).toMatchObject({
      code: 'BR123456789BR',
      carrier: 'Correios',
      url: 'https://rastreamento.correios.com.br/app/index.php?objetos=BR123456789BR',
    });
    // The A9 body, exactly once on the wire.
    expect(requestsFor(record.gatewayInvoiceId!)).toEqual([
      {
        invoiceId: record.gatewayInvoiceId,
        code: 'BR123456789BR',
        carrier: 'Correios',
        url: 'https://rastreamento.correios.com.br/app/index.php?objetos=BR123456789BR',
      },
    ]);
    const [row] = await rows(orderId);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, lockedBy: null, lastError: null });
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(app.posted.find((e) => e.orderId === orderId)).toMatchObject({
      code: 'BR123456789BR',
      invoiceRecordId: record.id,
      outboxId: row.id,
      attempts: 1,
    });
    expect(scene.h.logger.lines.join('\n')).not.toContain(TOKEN);
  });

  it('a host without events calls recordShipment; optional fields may be left out', async () => {
    const { orderId, record } = await scene.order();
    const result = await app.tracking.recordShipment({ orderId, trackingCode: ' JD0001 ' });
    expect(result).toMatchObject({ orderId, code: 'JD0001', outcome: 'queued' });
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 1, sent: 1 });
    expect(atSandbox(record.gatewayId!)).toMatchObject({ code: 'JD0001', carrier: null, url: null });
    expect(requestsFor(record.gatewayInvoiceId!)).toEqual([
      { invoiceId: record.gatewayInvoiceId, code: 'JD0001' },
    ]);
  });

  it('an unpaid order is refused with a clear error and a log line, and nothing is stored or sent', async () => {
    const { orderId, record } = await scene.order({ pay: false });
    expect(record.statusCode).toBe(1);
    const refused = app.tracking.recordShipment({ orderId, trackingCode: 'BR1' });
    await expect(refused).rejects.toBeInstanceOf(OrderNotPaidError);
    await expect(refused).rejects.toMatchObject({ orderId, reason: 'not_paid', statusCode: 1 });
    await expect(
      app.tracking.recordShipment({ orderId: 'order-unknown', trackingCode: 'BR1' }),
    ).rejects.toMatchObject({
      reason: 'no_invoice',
      message: 'order order-unknown has no invoice: no tracking code is sent for it',
    });

    // Through the event: the host's emit is not broken, the refusal is logged.
    await app.emitter.emitAsync('order.shipment_created', { orderId, trackingCode: 'BR2' });
    expect(scene.h.logger.lines).toContain(
      `warn Tracking code refused: order ${orderId} has no paid invoice (latest status 1): no tracking code is sent for it`,
    );
    expect(await rows(orderId)).toEqual([]);
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 0 });
    expect(requestsFor(record.gatewayInvoiceId!)).toEqual([]);
  });

  it('bad input names the field, and nothing is stored', async () => {
    const { orderId } = await scene.order();
    await expect(
      app.tracking.recordShipment({ orderId, trackingCode: 'BR1', trackingUrl: 'ftp://x' }),
    ).rejects.toMatchObject({ name: 'ShipmentValidationError', field: 'trackingUrl' });
    await expect(
      app.tracking.recordShipment({ orderId, trackingCode: undefined as unknown as string }),
    ).rejects.toBeInstanceOf(ShipmentValidationError);
    await app.emitter.emitAsync('order.shipment_created', 'not an object');
    expect(scene.h.logger.lines).toContain('warn Tracking code refused: shipment: must be an object');
    expect(await rows(orderId)).toEqual([]);
  });

  it('a duplicate event is posted once, even when both arrive at the same moment', async () => {
    const { orderId, record } = await scene.order();
    const event = { orderId, trackingCode: 'BR555555555BR', carrier: 'Correios' };
    await Promise.all([
      app.emitter.emitAsync('order.shipment_created', event),
      app.emitter.emitAsync('order.shipment_created', event),
    ]);
    await app.emitter.emitAsync('order.shipment_created', event);
    expect(await rows(orderId)).toHaveLength(1);

    expect(await app.worker.runOnce()).toMatchObject({ claimed: 1, sent: 1 });
    // And again after it was sent: nothing new to post.
    expect(await app.tracking.recordShipment(event)).toMatchObject({ outcome: 'duplicate' });
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 0 });
    expect(requestsFor(record.gatewayInvoiceId!)).toHaveLength(1);
    expect(app.posted.filter((e) => e.orderId === orderId)).toHaveLength(1);
  });

  it('a changed code posts the new one; an older code still waiting is never posted after it', async () => {
    const { orderId, record } = await scene.order();
    await app.tracking.recordShipment({ orderId, trackingCode: 'OLD1' });
    await app.tracking.recordShipment({ orderId, trackingCode: 'NEW2' });
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 1, sent: 1 });
    expect(requestsFor(record.gatewayInvoiceId!).map((r) => r.code)).toEqual(['NEW2']);
    const byCode = Object.fromEntries((await rows(orderId)).map((r) => [r.code, r.status]));
    expect(byCode).toEqual({ OLD1: 'superseded', NEW2: 'sent' });

    // Changed again after it was sent: posted; and back to the first code: posted again, it is the latest now.
    await app.tracking.recordShipment({ orderId, trackingCode: 'NEW3' });
    await app.worker.runOnce();
    expect(atSandbox(record.gatewayId!)).toMatchObject({ code: 'NEW3' });
    expect(await app.tracking.recordShipment({ orderId, trackingCode: 'OLD1' })).toMatchObject({
      outcome: 'requeued',
    });
    await app.worker.runOnce();
    expect(atSandbox(record.gatewayId!)).toMatchObject({ code: 'OLD1' });
    expect(requestsFor(record.gatewayInvoiceId!).map((r) => r.code)).toEqual(['NEW2', 'NEW3', 'OLD1']);
  });

  it('an older code already claimed is checked again before posting, and skipped', async () => {
    const { orderId, record } = await scene.order();
    await app.tracking.recordShipment({ orderId, trackingCode: 'FIRST' });
    // A worker elsewhere holds FIRST while the host records SECOND: FIRST is left to it, not superseded...
    await scene.db.dataSource
      .getRepository(TrackingOutbox)
      .update({ orderId }, { lockedBy: 'elsewhere#1', lockedUntil: new Date(Date.now() + 60_000) });
    await app.tracking.recordShipment({ orderId, trackingCode: 'SECOND' });
    // ...and SECOND waits while FIRST is held.
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 0 });
    // That worker died: its claim lapses, FIRST is taken over and found stale, SECOND is posted.
    await scene.db.dataSource
      .getRepository(TrackingOutbox)
      .update({ orderId, code: 'FIRST' }, { lockedUntil: new Date(Date.now() - 1) });
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 2, superseded: 1, sent: 1 });
    expect(await rows(orderId).then((r) => r.map((x) => [x.code, x.status]).sort())).toEqual([
      ['FIRST', 'superseded'],
      ['SECOND', 'sent'],
    ]);
    expect(requestsFor(record.gatewayInvoiceId!).map((r) => r.code)).toEqual(['SECOND']);
  });
});

describeEachDatabase('shipping: a host that names its own shipment event', (kind) => {
  const scene = openShippingScene(kind);
  let app: ShippingApp;

  beforeAll(async () => {
    app = await scene.start({
      shipmentEvent: 'fulfillment.shipped',
      mapShipmentEvent: (p) => {
        const e = p as { order: { id: string }; tracking: { number: string; company?: string } };
        return { orderId: e.order.id, trackingCode: e.tracking.number, carrier: e.tracking.company };
      },
    });
  });

  it('listens to that name with its payload, and not to the default one', async () => {
    const { orderId, record } = await scene.order();
    await app.emitter.emitAsync('order.shipment_created', { orderId, trackingCode: 'IGNORED' });
    await app.emitter.emitAsync('fulfillment.shipped', {
      order: { id: orderId },
      tracking: { number: 'LG123', company: 'Loggi' },
    });
    expect(await app.worker.runOnce()).toMatchObject({ claimed: 1, sent: 1 });
    expect(scene.h.sandbox.controls.getInvoice(record.gatewayId!)?.tracking).toMatchObject({
      code: 'LG123',
      carrier: 'Loggi',
    });
    expect(scene.h.trackingRequests().map((r) => r.code)).toEqual(['LG123']);
  });
});
