// GET /store/invoice-payments/carts/:cart_id (Medusa requires the publishable key of every /store route): the
// shopper's view of the cart's payment, for the <invoice-payment> component.
exports.GET = require('../../../../../../../../dist/src/medusa/store-api').getCartPayment;
