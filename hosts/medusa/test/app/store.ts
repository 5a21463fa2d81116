import { ADMIN } from './medusa-app';

export const PROVIDER_ID = 'pp_invoice-payments_br';
export const CPF = '52998224725';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Medusa's admin and store HTTP APIs, as a storefront and an admin user call them. */
export class MedusaStore {
  private token = '';
  private customerToken = '';
  /** The storefront's publishable key (`x-publishable-api-key`), as the storefront ships it to the browser. */
  publishableKey = '';
  regionId = '';
  variantId = '';
  locationId = '';
  shippingOptionId = '';

  constructor(private readonly url: string) {}

  async call(method: string, path: string, body?: unknown, as: 'admin' | 'store' = 'admin'): Promise<Json> {
    const res = await this.fetch(method, path, body, as);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Json) : {};
  }

  /** The raw answer, for tests of refusals. */
  fetch(method: string, path: string, body?: unknown, as: 'admin' | 'store' = 'admin'): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (as === 'admin') headers.authorization = `Bearer ${this.token}`;
    else {
      headers['x-publishable-api-key'] = this.publishableKey;
      if (this.customerToken) headers.authorization = `Bearer ${this.customerToken}`;
    }
    return fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private async auth(path: string, credentials: { email: string; password: string }): Promise<string> {
    const res = await fetch(`${this.url}/auth/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  }

  /**
   * A customer account with a name: Medusa gives the provider its customer (names, saved addresses), not the cart's
   * addresses, and the service needs the payer's name.
   */
  private async signUpCustomer(): Promise<void> {
    const customer = { email: 'ana@example.com', password: 'ana-secret-123' };
    this.customerToken = await this.auth('customer/emailpass/register', customer);
    await this.call(
      'POST',
      '/store/customers',
      { email: customer.email, first_name: 'Ana', last_name: 'Souza' },
      'store',
    );
    this.customerToken = await this.auth('customer/emailpass', customer);
  }

  /**
   * A region selling in BRL with the provider, a publishable key, a stock location shipping to Brazil, a product; and a
   * signed-up customer unless `guest` (the store API is then called without a customer).
   */
  async setUp({ guest = false } = {}): Promise<void> {
    this.token = await this.auth('user/emailpass', ADMIN);
    const { sales_channels } = await this.call('GET', '/admin/sales-channels');
    const channel = sales_channels[0].id as string;
    const { region } = await this.call('POST', '/admin/regions', {
      name: 'Brasil',
      currency_code: 'brl',
      countries: ['br'],
      payment_providers: [PROVIDER_ID],
    });
    this.regionId = region.id;
    const { api_key } = await this.call('POST', '/admin/api-keys', {
      title: 'storefront',
      type: 'publishable',
    });
    this.publishableKey = api_key.token;
    await this.call('POST', `/admin/api-keys/${api_key.id}/sales-channels`, { add: [channel] });

    const { stock_location } = await this.call('POST', '/admin/stock-locations', { name: 'São Paulo' });
    this.locationId = stock_location.id;
    await this.call('POST', `/admin/stock-locations/${this.locationId}/sales-channels`, { add: [channel] });
    await this.call('POST', `/admin/stock-locations/${this.locationId}/fulfillment-providers`, {
      add: ['manual_manual'],
    });
    const withSet = await this.call(
      'POST',
      `/admin/stock-locations/${this.locationId}/fulfillment-sets?fields=*fulfillment_sets`,
      {
        name: 'Entrega SP',
        type: 'shipping',
      },
    );
    const setId = withSet.stock_location.fulfillment_sets[0].id;
    const { fulfillment_set } = await this.call(
      'POST',
      `/admin/fulfillment-sets/${setId}/service-zones?fields=*service_zones`,
      {
        name: 'Brasil',
        geo_zones: [{ type: 'country', country_code: 'br' }],
      },
    );
    const { shipping_profile } = await this.call('POST', '/admin/shipping-profiles', {
      name: 'Padrão',
      type: 'default',
    });
    const { shipping_option } = await this.call('POST', '/admin/shipping-options', {
      name: 'Correios',
      service_zone_id: fulfillment_set.service_zones[0].id,
      shipping_profile_id: shipping_profile.id,
      provider_id: 'manual_manual',
      price_type: 'flat',
      type: { label: 'Correios', description: 'PAC', code: 'pac' },
      prices: [{ currency_code: 'brl', amount: 10 }],
      rules: [
        { attribute: 'enabled_in_store', value: 'true', operator: 'eq' },
        { attribute: 'is_return', value: 'false', operator: 'eq' },
      ],
    });
    this.shippingOptionId = shipping_option.id;
    const { product } = await this.call('POST', '/admin/products', {
      title: 'Camiseta',
      status: 'published',
      shipping_profile_id: shipping_profile.id,
      options: [{ title: 'Tamanho', values: ['M'] }],
      variants: [
        {
          title: 'M',
          options: { Tamanho: 'M' },
          manage_inventory: false,
          prices: [{ currency_code: 'brl', amount: 124.8 }],
        },
      ],
      sales_channels: [{ id: channel }],
    });
    this.variantId = product.variants[0].id;
    if (!guest) await this.signUpCustomer();
  }

  /**
   * A customer's checkout through the store API: cart, shipping, a payment session of the provider with `data`, then
   * completion. Returns the order and the session's data (the invoice the storefront shows).
   */
  async checkout(data: Json): Promise<{ order: Json; session: Json }> {
    const address = {
      first_name: 'Ana',
      last_name: 'Souza',
      address_1: 'Rua Augusta, 1500',
      city: 'São Paulo',
      province: 'SP',
      postal_code: '01304-001',
      country_code: 'br',
      phone: '11987654321',
    };
    const { cart } = await this.call(
      'POST',
      '/store/carts',
      {
        region_id: this.regionId,
        email: 'ana@example.com',
        items: [{ variant_id: this.variantId, quantity: 1 }],
        shipping_address: address,
        billing_address: address,
      },
      'store',
    );
    await this.call(
      'POST',
      `/store/carts/${cart.id}/shipping-methods`,
      { option_id: this.shippingOptionId },
      'store',
    );
    const { payment_collection } = await this.call(
      'POST',
      '/store/payment-collections',
      { cart_id: cart.id },
      'store',
    );
    const initiated = await this.call(
      'POST',
      `/store/payment-collections/${payment_collection.id}/payment-sessions`,
      { provider_id: PROVIDER_ID, data: { document: CPF, ...data } },
      'store',
    );
    const session = initiated.payment_collection.payment_sessions[0];
    const completed = await this.call('POST', `/store/carts/${cart.id}/complete`, {}, 'store');
    if (completed.type !== 'order') throw new Error(`cart not completed: ${JSON.stringify(completed)}`);
    return { order: completed.order, session };
  }

  async order(id: string): Promise<Json> {
    const fields = 'id,payment_status,fulfillment_status,*items,*payment_collections.payments';
    return (await this.call('GET', `/admin/orders/${id}?fields=${encodeURIComponent(fields)}`)).order;
  }
}
