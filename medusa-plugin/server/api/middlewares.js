// Medusa loads a plugin's API middlewares from .medusa/server/src/api/middlewares.js: the cart of a payment session
// of this provider is passed to it (a guest's name and e-mail), see docs/medusa.md "Checkout".
exports.default = require('../../../../dist/src/medusa/store-api').invoicePaymentsMiddlewares;
