import { ShipmentValidationError } from '../domain/shipping.errors';
import { DEFAULT_SHIPMENT_EVENT, resolveShippingOptions } from '../options/shipping.options';
import { validateShipment } from './tracking.service';

describe('resolveShippingOptions', () => {
  it('fills in the documented defaults', () => {
    const o = resolveShippingOptions();
    expect(o).toMatchObject({
      shipmentEvent: DEFAULT_SHIPMENT_EVENT,
      autoStartWorker: true,
      pollIntervalMs: 5000,
      batchSize: 10,
      leaseMs: 60_000,
      maxAttempts: 20,
      retentionMs: 30 * 86_400_000,
      backoff: { initialDelayMs: 10_000, maxDelayMs: 1_800_000, factor: 2, jitter: 0.5 },
    });
    const payload = { orderId: 'o1', trackingCode: 'BR1' };
    expect(o.mapShipmentEvent(payload)).toBe(payload);
  });

  it('keeps what the host sets, including no listener at all', () => {
    const o = resolveShippingOptions({
      shipmentEvent: false,
      maxAttempts: 3,
      backoff: { initialDelayMs: 5 },
    });
    expect(o.shipmentEvent).toBe(false);
    expect(o.maxAttempts).toBe(3);
    expect(o.backoff).toEqual({ initialDelayMs: 5, maxDelayMs: 1_800_000, factor: 2, jitter: 0.5 });
  });

  it.each([
    [{ shipmentEvent: ' ' }, 'shipping.shipmentEvent'],
    [{ maxAttempts: 0 }, 'shipping.maxAttempts'],
    [{ maxAttempts: 2.5 }, 'shipping.maxAttempts'],
    [{ batchSize: -1 }, 'shipping.batchSize'],
    [{ pollIntervalMs: Number.NaN }, 'shipping.pollIntervalMs'],
    [{ leaseMs: 0 }, 'shipping.leaseMs'],
    [{ backoff: { jitter: 2 } }, 'shipping.backoff.jitter'],
    [{ backoff: { factor: 0.5 } }, 'shipping.backoff.factor'],
    [{ backoff: { initialDelayMs: 10, maxDelayMs: 5 } }, 'shipping.backoff.maxDelayMs'],
  ])('refuses %j, naming %s', (options, name) => {
    expect(() => resolveShippingOptions(options)).toThrow(name);
  });
});

describe('validateShipment', () => {
  it('trims the fields and turns empty optional ones into null', () => {
    expect(
      validateShipment({ orderId: ' o1 ', trackingCode: ' BR123456789BR ', carrier: ' ', trackingUrl: '' }),
    ).toEqual({ orderId: 'o1', trackingCode: 'BR123456789BR', carrier: null, trackingUrl: null });
    expect(
      validateShipment({
        orderId: 'o1',
        trackingCode: 'BR1',
        carrier: 'Correios',
        trackingUrl: 'https://rastreamento.correios.com.br/?objetos=BR1',
      }),
    ).toEqual({
      orderId: 'o1',
      trackingCode: 'BR1',
      carrier: 'Correios',
      trackingUrl: 'https://rastreamento.correios.com.br/?objetos=BR1',
    });
  });

  it.each([
    [null, 'shipment'],
    ['o1', 'shipment'],
    [{ trackingCode: 'BR1' }, 'orderId'],
    [{ orderId: '  ', trackingCode: 'BR1' }, 'orderId'],
    [{ orderId: 7, trackingCode: 'BR1' }, 'orderId'],
    [{ orderId: 'x'.repeat(129), trackingCode: 'BR1' }, 'orderId'],
    [{ orderId: 'o1' }, 'trackingCode'],
    [{ orderId: 'o1', trackingCode: '' }, 'trackingCode'],
    [{ orderId: 'o1', trackingCode: 'BR 1' }, 'trackingCode'],
    [{ orderId: 'o1', trackingCode: 'B'.repeat(65) }, 'trackingCode'],
    [{ orderId: 'o1', trackingCode: 'BR1\u0000' }, 'trackingCode'],
    [{ orderId: 'o1', trackingCode: 'BR1', carrier: 3 }, 'carrier'],
    [{ orderId: 'o1', trackingCode: 'BR1', trackingUrl: 'javascript:alert(1)' }, 'trackingUrl'],
    [{ orderId: 'o1', trackingCode: 'BR1', trackingUrl: 'not a url' }, 'trackingUrl'],
  ])('refuses %j, naming %s', (input, field) => {
    let error: unknown;
    try {
      validateShipment(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ShipmentValidationError);
    expect((error as ShipmentValidationError).field).toBe(field);
    expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
  });
});
