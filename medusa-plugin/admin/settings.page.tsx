import { Container, Heading, Text } from '@medusajs/ui';
import { useEffect, useState } from 'react';
import { getJson, texts } from './texts.js';

function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Settings → Invoice payments: the module's effective settings, secrets masked (`GET /admin/invoice-payments/settings`). */
export function InvoicePaymentsSettingsPage() {
  const t = texts();
  const [settings, setSettings] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<{ settings: Record<string, unknown> }>('/admin/invoice-payments/settings')
      .then((body) => setSettings(body.settings))
      .catch((err: Error) => setError(err.message));
  }, []);
  return (
    <Container className="divide-y p-0" data-testid="invoice-payments-settings">
      <div className="px-6 py-4">
        <Heading>{t.settings}</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          {t.settingsNote}
        </Text>
      </div>
      {error && <Text className="text-ui-fg-error px-6 py-4">{`${t.failed}: ${error}`}</Text>}
      {Object.entries(settings ?? {}).map(([name, value]) => (
        <div key={name} className="grid grid-cols-2 gap-x-2 px-6 py-2">
          <Text size="small" weight="plus">
            {name}
          </Text>
          <Text size="small" className="break-all">
            {show(value)}
          </Text>
        </div>
      ))}
    </Container>
  );
}
