// Medusa loads a plugin's subscribers from .medusa/server/src/subscribers.
const plugin = require('../../../../dist/src/medusa/plugin');
exports.default = plugin.invoicePaymentsShipmentHandler;
exports.config = {
  event: plugin.MEDUSA_SHIPMENT_EVENT,
  context: { subscriberId: 'invoice-payments-tracking' },
};
