// Medusa loads a plugin's subscribers from .medusa/server/src/subscribers; the handler is the package's.
const medusa = require('nestjs-invoice-payments/medusa');
exports.default = medusa.invoicePaymentsShipmentHandler;
exports.config = {
  event: medusa.MEDUSA_SHIPMENT_EVENT,
  context: { subscriberId: 'invoice-payments-tracking' },
};
