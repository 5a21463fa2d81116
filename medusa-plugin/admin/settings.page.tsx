import { Alert, Container, Heading, Text } from '@medusajs/ui';
// What `GET /admin/invoice-payments/settings` answers.
import type { MedusaSettingField as Field, MedusaSettingsView as View } from 'nestjs-invoice-payments/medusa';
import { useAdminJson } from './admin-json.js';
import { dateTime } from './format.js';
import { useTexts } from './i18n.js';

type Texts = ReturnType<typeof useTexts>;
type Secret = { set: boolean; last4: string | null };

const rowId = (name: string) => `invoice-payments-setting-${name}`;

/** A setting's value as words: methods by name, secrets as set or not (never their value), nothing as "not set". */
function valueText(field: Field, value: unknown, { t }: Texts): string {
  const notSet = t('settings.notSet');
  switch (field.kind) {
    case 'mode':
      return t(`settings.mode.${String(value)}`);
    case 'secret': {
      const { set, last4 } = value as Secret;
      if (last4) return t('settings.secretSetLast4', { last4: last4.replace(/^…/, '') });
      return set ? t('settings.secretSet') : notSet;
    }
    case 'methods':
      return (value as string[]).length
        ? (value as string[]).map((m) => t(`method.${m}`)).join(', ')
        : notSet;
    case 'int':
      // Singular by hand: i18next finds no plural rule for Medusa's language codes (`ptBR` is not a locale tag).
      if (field.name === 'dueDays') return value === 1 ? t('settings.day') : t('settings.days', { n: value });
      if (field.name === 'maxInstallments') return t('settings.upTo', { n: value });
      return String(value);
    case 'ecommerce':
      return value ? t('settings.ecommerce', value as Record<string, unknown>) : notSet;
    case 'json':
      return value
        ? t('settings.profileCustom', { keys: Object.keys(value).join(', ') })
        : t('settings.profileDefault');
    default:
      return value === null || value === undefined || value === '' ? notSet : String(value);
  }
}

function SettingRow({ field, view, texts }: { field: Field; view: View; texts: Texts }) {
  const { t, tag } = texts;
  const warned = view.warnings.some((w) => w.setting === field.name);
  const where = view.settings.overridden.includes(field.name)
    ? t('settings.savedHere')
    : field.option && t('settings.setIn', { option: field.option });
  return (
    <div
      id={rowId(field.name)}
      data-testid={rowId(field.name)}
      className="grid grid-cols-2 items-start gap-x-4 px-6 py-3"
    >
      <Text size="small" leading="compact" weight="plus">
        {tag.startsWith('pt') ? field.label.pt : field.label.en}
      </Text>
      <div className="flex min-w-0 flex-col gap-y-1 break-words">
        <Text size="small" leading="compact" className={warned ? 'text-ui-fg-error' : 'text-ui-fg-subtle'}>
          {valueText(field, (view.settings as unknown as Record<string, unknown>)[field.name], texts)}
        </Text>
        {where && (
          <Text size="xsmall" leading="compact" className="text-ui-fg-muted break-words">
            {where}
          </Text>
        )}
      </div>
    </div>
  );
}

/** `medusa-config.ts` as it takes these settings: each option under its section. */
function configSketch(fields: Field[]): string {
  const sections = new Map<string, string[]>();
  for (const { option } of fields) {
    const [section, key] = option?.split('.') ?? [];
    if (section && key) sections.set(section, [...(sections.get(section) ?? []), key]);
  }
  const lines = [...sections].map(([section, keys]) => `  ${section}: { ${keys.join(', ')} },`);
  return ['// medusa-config.ts', 'const invoicePayments = {', ...lines, '};'].join('\n');
}

/** Settings → Invoice payments: the module's effective settings in words, what is missing, and where to change it. */
export function InvoicePaymentsSettingsPage() {
  const texts = useTexts();
  const { t, tag } = texts;
  const [view, error] = useAdminJson<View>('/settings');
  // The settings row also exists when nothing was saved in it (it holds the store's referrer namespace): its time
  // is a change only when a setting is saved there.
  const changedAt = view?.settings.overridden.length ? String(view.settings.updatedAt) : null;
  const rows = (advanced: boolean) =>
    view?.fields
      .filter((f) => f.advanced === advanced)
      .map((f) => <SettingRow key={f.name} field={f} view={view} texts={texts} />);
  return (
    <div className="flex flex-col gap-y-3" data-testid="invoice-payments-settings">
      <Container className="divide-y p-0">
        <div className="px-6 py-4">
          <Heading>{t('settings.title')}</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            {t('settings.note')}
          </Text>
        </div>
        {error && <Text className="text-ui-fg-error px-6 py-4">{`${t('failed')}: ${error}`}</Text>}
        {view?.warnings.map((w) => {
          const option = view.fields.find((f) => f.name === w.setting)?.option ?? w.setting;
          return (
            <div key={w.code} className="px-6 py-3">
              <Alert variant={w.severity} data-testid={`invoice-payments-warning-${w.code}`}>
                {t(`settings.warning.${w.code}`, { option })}{' '}
                <a href={`#${rowId(w.setting)}`} className="text-ui-fg-interactive">
                  {t('settings.whereToChange')}
                </a>
              </Alert>
            </div>
          );
        })}
        {rows(false)}
        <div className="grid grid-cols-2 gap-x-4 px-6 py-3" data-testid="invoice-payments-setting-updatedAt">
          <Text size="small" leading="compact" weight="plus">
            {t('settings.updatedAt')}
          </Text>
          <Text size="small" leading="compact" className="text-ui-fg-subtle">
            {changedAt ? dateTime(changedAt, tag) : t('settings.neverChanged')}
          </Text>
        </div>
      </Container>
      <Container className="divide-y p-0">
        <Heading level="h2" className="px-6 py-4">
          {t('settings.advanced')}
        </Heading>
        {rows(true)}
      </Container>
      <Container className="flex flex-col gap-y-2 px-6 py-4" id="invoice-payments-how">
        <Heading level="h2">{t('settings.howTitle')}</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          {t('settings.howText')}
        </Text>
        {view && (
          <pre className="txt-compact-xsmall bg-ui-bg-subtle overflow-x-auto rounded-md p-3">
            {configSketch(view.fields)}
          </pre>
        )}
      </Container>
    </div>
  );
}
