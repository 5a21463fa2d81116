import type { DataSource } from 'typeorm';
import type { ShopperPaymentsService, ShopperRecordFinder } from '../checkout/shopper-payments.service';
import type { ShopperPaymentView } from '../checkout/shopper-view';
import { httpAnswerOf, sendHttpAnswer } from '../errors/http-answers';
import { asRecord } from '../gateway/json';
import { InvoiceRecord } from '../persistence/invoice.entity';
import {
  pluginOptions,
  SESSION_PREFIX,
  type MedusaContainer,
  type MedusaQuery,
  type MedusaRequest,
  type MedusaResponse,
} from './plugin';
import { logger, runtimeServices } from './runtime';
import type { MedusaCheckoutCart } from './types';

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
  const cart = (data[0] as { cart?: Partial<MedusaCheckoutCart> & { id: string } } | undefined)?.cart;
  if (!cart) return null;
  // Medusa's query leaves out what the cart does not have.
  return { email: null, billing_address: null, shipping_address: null, ...cart };
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
    const data = asRecord(body?.data ?? {});
    const collectionId = req.params.id;
    if (!ours || !data || !collectionId) return next();
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

/*
 * The shopper's status route (`api/store/invoice-payments/carts/[cart_id]`), polled by the `<invoice-payment>`
 * component: it answers from the module's record of the cart's session, never asking the service.
 */

/** A request of the store API: Medusa's signed-in customer, if any, is `auth_context.actor_id`. */
type StoreRequest = MedusaRequest & { auth_context?: { actor_id?: string; actor_type?: string } };
type StoreResponse = MedusaResponse & { setHeader(name: string, value: string): void };

/**
 * `GET /store/invoice-payments/carts/:cart_id`: the view of the cart's payment (SHOPPER_CONTRACT's JSON). Its
 * `orderUrl` is every host's: `checkout.orderUrlTemplate` filled in as for the invoice's `payment.order_url` (in
 * Medusa, `{order_id}` and `{reference}` are the payment session's id, the invoice's order key).
 */
export function getCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, (shopper, key, find) => shopper.read(key, find));
}

/**
 * `POST /store/invoice-payments/carts/:cart_id/renewal`: a new code for the cart's expired (or expiring) PIX, then the
 * new view. A renewal whose answer was lost is a 503 with `Retry-After`, and nothing is sent again meanwhile.
 */
export function renewCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, (shopper, key, find) => shopper.renew(key, find));
}

/** The cart checked, then the module's shopper path (rate per cart, the caller's record); errors as HTTP answers. */
async function answer(
  req: StoreRequest,
  res: StoreResponse,
  then: (
    shopper: ShopperPaymentsService,
    key: string,
    find: ShopperRecordFinder,
  ) => Promise<ShopperPaymentView>,
): Promise<void> {
  const cartId = req.params.cart_id;
  const problem = cartIdProblem(cartId);
  if (problem) {
    // The module's answer of a field error (as its own routes give it), naming the path's parameter.
    const fields = { cart_id: [problem] };
    res.status(400).json({ statusCode: 400, error: 'Bad Request', message: `cart_id ${problem}`, fields });
    return;
  }
  try {
    const services = await runtimeServices(pluginOptions(req.scope));
    const actor = req.auth_context?.actor_type === 'customer' ? req.auth_context.actor_id : undefined;
    const find = () => cartPaymentRecord(req.scope, services.dataSource, cartId as string, actor);
    res.json(await then(services.shopper, `medusa-cart:${cartId}`, find));
  } catch (err) {
    const known = httpAnswerOf(err);
    if (!known) throw err;
    if (known.status >= 500) logger.warn(`cart payment ${cartId}: ${(err as Error).message}`);
    sendHttpAnswer(res, known);
  }
}

/** Medusa's cart ids (`cart_` and a ULID); a looser bound, so a store's own id scheme still passes. */
const CART_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What is wrong with a `:cart_id` from the path, or `null`. */
export function cartIdProblem(id: unknown): string | null {
  return typeof id === 'string' && CART_ID.test(id)
    ? null
    : 'must be a Medusa cart id (1 to 64 letters, digits, _ or -)';
}

interface CartRow {
  id: string;
  customer_id?: string | null;
  payment_collection?: {
    payment_sessions?: Array<{
      id: string;
      provider_id: string;
      created_at?: string | Date;
      data?: Record<string, unknown> | null;
    }> | null;
  } | null;
}

/**
 * The invoice record of the cart's current payment session of this provider, or `null` when the cart does not exist,
 * is not the caller's, or has no session of ours (one answer for all: a 404 tells a stranger nothing).
 *
 * The cart id is the guest's secret, as for Medusa's own `GET /store/carts/:id`. A cart of a registered customer is
 * read only by that customer signed in, or without a customer signed in (the id alone, as Medusa's route does); a
 * signed-in customer never reads another customer's cart.
 */
export async function cartPaymentRecord(
  container: MedusaContainer,
  dataSource: DataSource,
  cartId: string,
  actorId: string | undefined,
): Promise<InvoiceRecord | null> {
  const { data } = await container.resolve<MedusaQuery>('query').graph({
    entity: 'cart',
    fields: [
      'id',
      'customer_id',
      'payment_collection.payment_sessions.id',
      'payment_collection.payment_sessions.provider_id',
      'payment_collection.payment_sessions.created_at',
      'payment_collection.payment_sessions.data',
    ],
    filters: { id: cartId },
  });
  const cart = data[0] as CartRow | undefined;
  if (!cart) return null;
  if (actorId && cart.customer_id && cart.customer_id !== actorId) return null;
  const sessions = (cart.payment_collection?.payment_sessions ?? [])
    .filter((s) => s.provider_id.startsWith(SESSION_PREFIX))
    .sort((a, b) => new Date(b.created_at ?? 0).getTime() - new Date(a.created_at ?? 0).getTime());
  // The session's data names its record (the provider's answer overwrites the storefront's input); the record must
  // be that session's own.
  const recordId = sessions[0]?.data?.invoiceRecordId;
  if (typeof recordId !== 'string' || !recordId) return null;
  const record = await dataSource.getRepository(InvoiceRecord).findOne({ where: { id: recordId } });
  return record?.orderId === sessions[0].id ? record : null;
}
