import { PAYMENT_SESSIONS_ROUTE, withCheckoutCart } from './checkout-cart';

/** The plugin's `api/middlewares` configuration (Medusa's `defineMiddlewares` shape). */
export const invoicePaymentsMiddlewares = {
  routes: [{ matcher: PAYMENT_SESSIONS_ROUTE, methods: ['POST'], middlewares: [withCheckoutCart] }],
};
