import { defineWidgetConfig } from '@medusajs/admin-sdk';
import { Badge, Container, Copy, Heading, StatusBadge, Text } from '@medusajs/ui';
import type { ReactNode } from 'react';
// What `GET /admin/invoice-payments/orders/:id` answers per invoice.
import type { MedusaOrderInvoiceView as InvoiceView } from 'nestjs-invoice-payments/medusa';
import { useAdminJson } from './admin-json.js';
import { calendarDate, money } from './format.js';
import { useTexts } from './i18n.js';

/** The status table's tone as Medusa's own badge colours (its order payment statuses use the same ones). */
const BADGE_COLOR = { paid: 'green', open: 'orange', ended: 'red', expired: 'grey' } as const;

/** A label and its value, as the rows of Medusa's own order page sections. */
function Row({ label, id, children }: { label: string; id: string; children: ReactNode }) {
  return (
    <div
      className="text-ui-fg-subtle grid grid-cols-2 items-start gap-x-2 px-6 py-3"
      data-testid={`invoice-payments-${id}`}
    >
      <Text size="small" leading="compact" weight="plus">
        {label}
      </Text>
      <div className="txt-compact-small break-all">{children}</div>
    </div>
  );
}

/** The card's brand as people write it (`visa` → `Visa`), then the last 4 digits. */
function cardText(card: NonNullable<InvoiceView['card']>): string {
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : '';
  return [brand, card.last4 ? `•••• ${card.last4}` : ''].filter(Boolean).join(' ');
}

function StatusWord({ invoice: i }: { invoice: InvoiceView }) {
  const { t } = useTexts();
  const word =
    i.statusCode === null
      ? t('status.none')
      : i.statusName === null
        ? t('status.unknown', { code: i.statusCode })
        : t(`status.${i.statusCode}`);
  const color = i.statusTone ? BADGE_COLOR[i.statusTone] : 'grey';
  return (
    <StatusBadge color={color} data-testid="invoice-payments-status" data-tone={i.statusTone ?? ''}>
      {word}
    </StatusBadge>
  );
}

function Invoice({ invoice: i }: { invoice: InvoiceView }) {
  const { t, tag } = useTexts();
  const amount = (cents: number | null) => money(cents, i.currency);
  return (
    <div className="divide-y" data-testid="invoice-payments-invoice">
      <div className="flex items-center justify-between gap-x-2 px-6 py-3">
        <Text size="small" leading="compact" weight="plus" data-testid="invoice-payments-method">
          {t(`method.${i.method}`)}
        </Text>
        <StatusWord invoice={i} />
      </div>
      {i.gatewayId && (
        <Row label={t('invoiceNumber')} id="number">
          {i.gatewayId} <Copy content={i.gatewayId} />
        </Row>
      )}
      <Row label={t('amount')} id="amount">
        {amount(i.amountCents)}
      </Row>
      <Row label={t('paid')} id="paid">
        {amount(i.paidCents)}
      </Row>
      {i.payBy && (
        <Row label={t('dueDate')} id="due-date">
          {calendarDate(i.payBy, tag)}
        </Row>
      )}
      {i.card && (
        <Row label={t('card')} id="card">
          {cardText(i.card)}
          {i.installments > 1 && ` · ${t('installments', { n: i.installments })}`}
        </Row>
      )}
      {i.pixPayload && (
        <Row label={t('pixCode')} id="pix-code">
          <code>{i.pixPayload}</code> <Copy content={i.pixPayload} />
          {i.pixImage && (
            <img src={i.pixImage} alt="PIX QR" className="size-32" data-testid="invoice-payments-pix-qr" />
          )}
        </Row>
      )}
      {i.billetLine && (
        <Row label={t('billetLine')} id="billet-line">
          <code>{i.billetLine}</code> <Copy content={i.billetLine} />
          {i.billetUrl && (
            <a href={i.billetUrl} target="_blank" rel="noreferrer" className="text-ui-fg-interactive block">
              {t('billetLink')}
            </a>
          )}
        </Row>
      )}
      {i.refunds.length > 0 && (
        <Row label={t('refunds')} id="refunds">
          {i.refunds.map((r) => (
            <div key={r.id} className="flex flex-wrap items-center gap-x-2">
              {amount(r.amountCents)}
              <Badge size="2xsmall" data-testid="invoice-payments-refund-state">
                {t(`refundState.${r.state}`)}
              </Badge>
            </div>
          ))}
        </Row>
      )}
      {(i.paidCents ?? 0) > 0 && (
        <Row label={t('refundable')} id="refundable">
          {amount(i.refundableCents)}
        </Row>
      )}
      {i.tracking.map((c) => (
        <Row key={c.code} label={t('tracking')} id="tracking">
          {c.code} <Badge size="2xsmall">{c.status === 'sent' ? t('atService') : t('notYet')}</Badge>
        </Row>
      ))}
      {i.alerts.length > 0 && (
        <Row label={t('alerts')} id="alerts">
          {i.alerts.map((a, n) => (
            <div
              key={n}
              className={a.acknowledged ? '' : 'text-ui-fg-error'}
            >{`${t(`alert.${a.kind}`, { defaultValue: a.kind })}: ${a.message}`}</div>
          ))}
        </Row>
      )}
    </div>
  );
}

/** Medusa's order page: the invoices of the order's payment sessions of the provider. */
export function OrderInvoiceWidget({ data }: { data: { id: string } }) {
  const { t } = useTexts();
  const [body, error] = useAdminJson<{ invoices: InvoiceView[] }>(`/orders/${encodeURIComponent(data.id)}`);
  if (body?.invoices.length === 0) return null;
  return (
    <Container className="divide-y p-0" data-testid="invoice-payments-widget">
      <div className="px-6 py-4">
        <Heading level="h2">{t('title')}</Heading>
      </div>
      {error && <Text className="text-ui-fg-error px-6 py-4">{`${t('failed')}: ${error}`}</Text>}
      {body?.invoices.map((invoice) => (
        <Invoice key={invoice.id} invoice={invoice} />
      ))}
    </Container>
  );
}

export const config = defineWidgetConfig({ zone: ['order.details.side'] });
