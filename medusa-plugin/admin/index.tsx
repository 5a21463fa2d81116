import { resources, SETTINGS_TITLE_KEY } from './i18n.js';
import { config, OrderInvoiceWidget } from './order-invoice.widget.js';
import { InvoicePaymentsSettingsPage } from './settings.page.js';

const SETTINGS_PATH = '/settings/invoice-payments';

/**
 * The plugin's admin extensions, in the shape Medusa's dashboard reads from a plugin's `exports['./admin']` (what
 * `medusa plugin:build` writes): the order page's widget, a settings page listed in the settings menu, and the
 * plugin's words merged into the admin's translations (the menu item is translated by its key, as Medusa's own).
 */
export default {
  widgetModule: {
    widgets: [{ Component: OrderInvoiceWidget, zone: config.zone, widgetId: 'invoice-payments-order' }],
  },
  routeModule: { routes: [{ Component: InvoicePaymentsSettingsPage, path: SETTINGS_PATH }] },
  menuItemModule: {
    menuItems: [{ label: SETTINGS_TITLE_KEY, translationNs: 'translation', path: SETTINGS_PATH }],
  },
  formModule: { customFields: {} },
  displayModule: { displays: {} },
  i18nModule: { resources },
};
