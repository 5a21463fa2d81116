// Medusa loads a plugin's jobs from .medusa/server/src/jobs.
const plugin = require('../../../../dist/src/medusa/plugin');
exports.default = plugin.invoicePaymentsSyncJob;
exports.config = plugin.invoicePaymentsSyncJobConfig;
