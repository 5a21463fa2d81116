import { CPF, PROVIDER_ID, type MedusaStore } from './store';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Maria, who buys without an account: her name is only on the cart's addresses, her CPF in the session's data. */
export const MARIA = {
  email: 'maria@example.com',
  address: {
    first_name: 'Maria',
    last_name: 'Souza',
    address_1: 'Rua Augusta, 1500',
    city: 'São Paulo',
    province: 'SP',
    postal_code: '01304-001',
    country_code: 'br',
    phone: '11912345678',
  },
};

/**
 * A guest's checkout through the store API calls of Medusa's Next.js starter storefront (its `sdk.store.cart.*` and
 * `sdk.store.payment.initiatePaymentSession`), no customer signed in.
 */
export class GuestCheckout {
  constructor(private readonly store: MedusaStore) {}

  private call(method: string, path: string, body?: unknown): Promise<Json> {
    return this.store.call(method, path, body, 'store');
  }

  /** Cart, item, e-mail and addresses, shipping method: a cart ready to pay. Returns its id. */
  async cart(): Promise<string> {
    const { cart } = await this.call('POST', '/store/carts', { region_id: this.store.regionId });
    await this.call('POST', `/store/carts/${cart.id}/line-items`, {
      variant_id: this.store.variantId,
      quantity: 1,
    });
    await this.call('POST', `/store/carts/${cart.id}`, {
      email: MARIA.email,
      shipping_address: MARIA.address,
      billing_address: MARIA.address,
    });
    await this.call('POST', `/store/carts/${cart.id}/shipping-methods`, {
      option_id: this.store.shippingOptionId,
    });
    return cart.id;
  }

  /** `initiatePaymentSession`: the cart's payment collection, then a session of the provider with `data`. */
  async pay(cartId: string, data: Json): Promise<Json> {
    const { payment_collection } = await this.call('POST', '/store/payment-collections', { cart_id: cartId });
    const initiated = await this.call(
      'POST',
      `/store/payment-collections/${payment_collection.id}/payment-sessions`,
      { provider_id: PROVIDER_ID, data: { document: CPF, ...data } },
    );
    return initiated.payment_collection.payment_sessions[0];
  }

  /** `sdk.store.cart.complete`: the order. */
  async complete(cartId: string): Promise<Json> {
    const completed = await this.call('POST', `/store/carts/${cartId}/complete`, {});
    if (completed.type !== 'order') throw new Error(`cart not completed: ${JSON.stringify(completed)}`);
    return completed.order;
  }

  /** The whole checkout: the order and the session's data (the invoice the storefront shows). */
  async checkout(data: Json): Promise<{ cartId: string; order: Json; session: Json }> {
    const cartId = await this.cart();
    const session = await this.pay(cartId, data);
    return { cartId, session, order: await this.complete(cartId) };
  }
}
