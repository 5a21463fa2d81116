import { type MedusaContainer, type MedusaQuery, type MedusaRequest, SESSION_PREFIX } from './plugin';
import type { MedusaAddress, MedusaCheckoutCart } from './types';

/*
 * Why a middleware: Medusa gives the provider only the signed-in customer and the storefront's `data`, while a
 * guest's name and e-mail are on the cart, which the isolated Payment module cannot read. The API layer can: the
 * middleware puts the cart's e-mail and its addresses' names and phone in `data.cart`, over what the storefront sent.
 */

/** The route of Medusa's store API where a storefront creates a payment session (`initiatePaymentSession`). */
export const PAYMENT_SESSIONS_ROUTE = '/store/payment-collections/:id/payment-sessions';

/** What the provider reads of the cart's addresses: the payer's name and phone, nothing else. */
const ADDRESS_FIELDS = ['first_name', 'last_name', 'phone'];
const ADDRESSES = ['billing_address', 'shipping_address'] as const;

/** The cart a payment collection belongs to (its e-mail and billing address), or `null` (an order's collection). */
export async function cartOfCollection(
  container: MedusaContainer,
  collectionId: string,
): Promise<MedusaCheckoutCart | null> {
  const { data } = await container.resolve<MedusaQuery>('query').graph({
    entity: 'payment_collection',
    fields: [
      'id',
      'cart.id',
      'cart.email',
      ...ADDRESSES.flatMap((a) => ADDRESS_FIELDS.map((f) => `cart.${a}.${f}`)),
    ],
    filters: { id: collectionId },
  });
  type Cart = { id: string; email?: string | null } & Partial<
    Record<(typeof ADDRESSES)[number], MedusaAddress | null>
  >;
  const cart = (data[0] as { cart?: Cart | null } | undefined)?.cart;
  if (!cart) return null;
  return {
    id: cart.id,
    email: cart.email ?? null,
    billing_address: cart.billing_address ?? null,
    shipping_address: cart.shipping_address ?? null,
  };
}

type Next = (err?: unknown) => void;

/**
 * The plugin's middleware on {@link PAYMENT_SESSIONS_ROUTE}: for a session of this provider, `data.cart` is the
 * collection's cart as Medusa has it. Other providers' requests, and bodies Medusa's validator will refuse, pass as
 * they came.
 */
export async function withCheckoutCart(
  req: MedusaRequest & { body?: unknown },
  _res: unknown,
  next: Next,
): Promise<void> {
  try {
    const body = req.body as { provider_id?: unknown; data?: unknown } | undefined;
    const ours = typeof body?.provider_id === 'string' && body.provider_id.startsWith(SESSION_PREFIX);
    const data = body?.data ?? {};
    const collectionId = req.params.id;
    if (!ours || typeof data !== 'object' || data === null || Array.isArray(data) || !collectionId)
      return next();
    body!.data = { ...data, cart: await cartOfCollection(req.scope, collectionId) };
    next();
  } catch (err) {
    next(err);
  }
}

/** The plugin's `api/middlewares` configuration (Medusa's `defineMiddlewares` shape). */
export const invoicePaymentsMiddlewares = {
  routes: [{ matcher: PAYMENT_SESSIONS_ROUTE, methods: ['POST'], middlewares: [withCheckoutCart] }],
};
