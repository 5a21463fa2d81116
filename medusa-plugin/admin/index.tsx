import { Container, Heading, Text } from '@medusajs/ui';
import { config, OrderInvoiceWidget } from './order-invoice.widget.js';
import { texts, useAdminJson } from './texts.js';

const SETTINGS_PATH = '/settings/invoice-payments';

/** Settings → Invoice payments: the module's effective settings, secrets masked. */
function InvoicePaymentsSettingsPage() {
  const t = texts();
  const [body, error] = useAdminJson<{ settings: Record<string, unknown> }>('/settings');
  return (
    <Container className="divide-y p-0" data-testid="invoice-payments-settings">
      <div className="px-6 py-4">
        <Heading>{t.settings}</Heading>
        <Text size="small">{t.settingsNote}</Text>
      </div>
      {error && <Text className="text-ui-fg-error px-6 py-4">{`${t.failed}: ${error}`}</Text>}
      {Object.entries(body?.settings ?? {}).map(([name, value]) => (
        <div key={name} className="grid grid-cols-2 gap-x-2 px-6 py-2 txt-small break-all">
          <b>{name}</b>
          <span>{typeof value === 'object' ? JSON.stringify(value) : String(value ?? '—')}</span>
        </div>
      ))}
    </Container>
  );
}

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
