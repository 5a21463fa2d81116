import type { ShopperPaymentsService, ShopperRecordFinder } from '../checkout/shopper-payments.service';
import type { ShopperPaymentView } from '../checkout/shopper-view';
import { httpAnswerOf } from '../errors/http-answers';
import { cartIdProblem, cartPaymentRecord } from './cart-payment';
import { pluginOptions, type MedusaRequest, type MedusaResponse } from './plugin';
import { logger, runtimeServices } from './runtime';

/*
 * The shopper's status route in Medusa's store API (`api/store/invoice-payments/carts/[cart_id]`), polled by the
 * `<invoice-payment>` component: it answers from the module's record of the cart's session, never asking the service.
 */

/** A request of the store API: Medusa's signed-in customer, if any, is `auth_context.actor_id`. */
type StoreRequest = MedusaRequest & { auth_context?: { actor_id?: string; actor_type?: string } };
type StoreResponse = MedusaResponse & { setHeader(name: string, value: string): void };

/** The view as Medusa's route gives it: no order page (the session's record names no Medusa order). */
const NO_ORDER_URL = { orderUrl: null };

/** `GET /store/invoice-payments/carts/:cart_id`: the view of the cart's payment (SHOPPER_CONTRACT's JSON). */
export function getCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, (shopper, key, find) => shopper.read(key, find, NO_ORDER_URL));
}

/**
 * `POST /store/invoice-payments/carts/:cart_id/renewal`: a new code for the cart's expired (or expiring) PIX, then the
 * new view. A renewal whose answer was lost is a 503 with `Retry-After`, and nothing is sent again meanwhile.
 */
export function renewCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, (shopper, key, find) => shopper.renew(key, find, NO_ORDER_URL));
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
    if (known.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(known.retryAfterSeconds));
    res.status(known.status).json(known.body);
  }
}
