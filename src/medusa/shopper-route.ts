import { SHOPPER_READS, SHOPPER_RENEWALS } from '../checkout/shopper-payments.service';
import { shopperViewOf, type ShopperPaymentView } from '../checkout/shopper-view';
import { ShopperPaymentNotFoundError, ShopperRateLimitedError } from '../checkout/shopper.errors';
import { RateWindows } from '../core/rate-windows';
import { httpAnswerOf } from '../errors/http-answers';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { cartIdProblem, cartPaymentRecord } from './cart-payment';
import { pluginOptions, type MedusaRequest, type MedusaResponse } from './plugin';
import { logger, runtimeServices } from './runtime';
import type { MedusaRuntimeServices } from './runtime-services';

/*
 * The shopper's status route in Medusa's store API (`api/store/invoice-payments/carts/[cart_id]`), polled by the
 * `<invoice-payment>` component: it answers from the module's record of the cart's session, never asking the service.
 */

/** A request of the store API: Medusa's signed-in customer, if any, is `auth_context.actor_id`. */
type StoreRequest = MedusaRequest & { auth_context?: { actor_id?: string; actor_type?: string } };
type StoreResponse = MedusaResponse & { setHeader(name: string, value: string): void };

// Per cart, the limits of the module's own status route (per token), per Medusa process.
const reads = new RateWindows(SHOPPER_READS);
const renewals = new RateWindows(SHOPPER_RENEWALS);

/** `GET /store/invoice-payments/carts/:cart_id`: the view of the cart's payment (SHOPPER_CONTRACT's JSON). */
export function getCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, reads, async (record, services) => view(record, services));
}

/**
 * `POST /store/invoice-payments/carts/:cart_id/renewal`: a new code for the cart's expired (or expiring) PIX, then the
 * new view. A renewal whose answer was lost is a 503 with `Retry-After`, and nothing is sent again meanwhile.
 */
export function renewCartPayment(req: StoreRequest, res: StoreResponse): Promise<void> {
  return answer(req, res, renewals, async (record, services) =>
    view(await services.renewal.renew(record), services),
  );
}

async function view(record: InvoiceRecord, services: MedusaRuntimeServices): Promise<ShopperPaymentView> {
  const { timeZone } = await services.checkout.current();
  return shopperViewOf(record, { timeZone, now: new Date() });
}

/** The cart checked, counted, found as the caller's, then `then`; the module's errors as its HTTP answers. */
async function answer(
  req: StoreRequest,
  res: StoreResponse,
  rate: RateWindows,
  then: (record: InvoiceRecord, services: MedusaRuntimeServices) => Promise<ShopperPaymentView>,
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
    const hit = rate.hit(cartId as string);
    if (hit.limited) throw new ShopperRateLimitedError(hit.retryAfterSeconds);
    const services = await runtimeServices(pluginOptions(req.scope));
    const actor = req.auth_context?.actor_type === 'customer' ? req.auth_context.actor_id : undefined;
    const record = await cartPaymentRecord(req.scope, services.dataSource, cartId as string, actor);
    if (!record) throw new ShopperPaymentNotFoundError();
    res.json(await then(record, services));
  } catch (err) {
    const known = httpAnswerOf(err);
    if (!known) throw err;
    if (known.status >= 500) logger.warn(`cart payment ${cartId}: ${(err as Error).message}`);
    if (known.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(known.retryAfterSeconds));
    res.status(known.status).json(known.body);
  }
}
