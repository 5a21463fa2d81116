// GET /admin/invoice-payments/settings (Medusa authenticates /admin routes): the settings page.
exports.GET = require('nestjs-invoice-payments/medusa').getInvoicePaymentsSettings;
