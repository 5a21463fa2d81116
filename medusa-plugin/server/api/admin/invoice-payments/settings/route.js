// /admin/invoice-payments/settings (Medusa authenticates /admin routes): GET what the settings page shows, POST a
// change of the module's settings (docs/medusa.md, "In Medusa's admin").
const routes = require('../../../../../../../dist/src/medusa/admin-routes');

exports.GET = routes.getInvoicePaymentsSettings;
exports.POST = routes.postInvoicePaymentsSettings;
