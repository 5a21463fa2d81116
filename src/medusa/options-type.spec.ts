import type { InvoicePaymentsMedusaOptions } from './types';

/** Medusa types a module provider's and a plugin's `options` as `Record<string, unknown>` (`medusa build` checks it). */
function medusaOptions(options: Record<string, unknown>): Record<string, unknown> {
  return options;
}

describe('InvoicePaymentsMedusaOptions', () => {
  it('is accepted where Medusa expects Record<string, unknown> (medusa-config.ts type-checks)', () => {
    const options: InvoicePaymentsMedusaOptions = {
      gateway: { baseUrl: 'https://api.example.com', accessToken: 'token', mode: 'sandbox' },
      checkout: { methods: ['pix'] },
      webhooks: { merchantToken: 'merchant-part' },
      databaseSchema: 'invoice_payments',
    };
    expect(medusaOptions(options)).toBe(options);
  });

  it('leaves out what Medusa itself provides: the webhook route and the shipment event', () => {
    const options: InvoicePaymentsMedusaOptions = {
      gateway: { baseUrl: 'https://api.example.com', accessToken: 'token', mode: 'sandbox' },
      // @ts-expect-error Medusa's `/hooks/payment/:provider` is the webhook route.
      webhooks: { path: 'webhooks' },
      // @ts-expect-error the shipment comes from Medusa's subscriber.
      shipping: { shipmentEvent: 'order.shipped' },
    };
    expect(Object.keys(options)).toEqual(['gateway', 'webhooks', 'shipping']);
  });
});
