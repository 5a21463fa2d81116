// GET /admin/invoice-payments/orders/:id (Medusa authenticates /admin routes): the order page's widget.
exports.GET = require('../../../../../../../../dist/src/medusa/admin-routes').getOrderInvoices;
