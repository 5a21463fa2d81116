// GET /admin/invoice-payments/settings (Medusa authenticates /admin routes): the settings page.
exports.GET = require('../../../../../../../dist/src/medusa/admin-routes').getInvoicePaymentsSettings;
