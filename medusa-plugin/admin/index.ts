import { config, OrderInvoiceWidget } from './order-invoice.widget.js';
import { InvoicePaymentsSettingsPage } from './settings.page.js';
import { texts } from './texts.js';

const SETTINGS_PATH = '/settings/invoice-payments';

/**
 * The plugin's admin extensions, in the shape Medusa's dashboard reads from a plugin's `exports['./admin']` (what
 * `medusa plugin:build` writes): the order page's widget and a settings page listed in the settings menu.
 */
export default {
  widgetModule: {
    widgets: [{ Component: OrderInvoiceWidget, zone: config.zone, widgetId: 'invoice-payments-order' }],
  },
  routeModule: { routes: [{ Component: InvoicePaymentsSettingsPage, path: SETTINGS_PATH }] },
  menuItemModule: { menuItems: [{ label: texts().settings, path: SETTINGS_PATH }] },
  formModule: { customFields: {} },
  displayModule: { displays: {} },
  i18nModule: { resources: {} },
};
