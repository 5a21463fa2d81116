// POST /store/invoice-payments/carts/:cart_id/renewal: a new code for the cart's expired PIX, answered with the view.
exports.POST = require('../../../../../../../../../dist/src/medusa/store-api').renewCartPayment;
