// Medusa loads a plugin's jobs from .medusa/server/src/jobs; the job is the package's.
const medusa = require('nestjs-invoice-payments/medusa');
exports.default = medusa.invoicePaymentsSyncJob;
exports.config = medusa.invoicePaymentsSyncJobConfig;
