import { defineWidgetConfig } from '@medusajs/admin-sdk';
import { Badge, Container, Copy, Heading, StatusBadge, Text } from '@medusajs/ui';
import type { ReactNode } from 'react';
// What `GET /admin/invoice-payments/orders/:id` answers per invoice.
import type { MedusaOrderInvoiceView as InvoiceView } from 'nestjs-invoice-payments/medusa';
import { money, texts, useAdminJson } from './texts.js';

function Row({ label, id, children }: { label: string; id: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-2 gap-x-2 px-6 py-2" data-testid={`invoice-payments-${id}`}>
      <Text size="small" weight="plus">
        {label}
      </Text>
      <div className="text-ui-fg-subtle txt-small break-all">{children}</div>
    </div>
  );
}

function Invoice({ invoice: i }: { invoice: InvoiceView }) {
  const t = texts();
  const code = i.statusCode ?? 0;
  const color = [4, 5, 8].includes(code) ? 'green' : [6, 7, 10, 11, 14].includes(code) ? 'red' : 'orange';
  return (
    <div className="divide-y" data-testid="invoice-payments-invoice">
      <div className="flex items-center justify-between px-6 py-3">
        <Text weight="plus" data-testid="invoice-payments-method">
          {t[i.method]}
        </Text>
        <StatusBadge color={color} data-testid="invoice-payments-status">
          {i.statusText ?? '—'}
        </StatusBadge>
      </div>
      <Row label={t.amount} id="amount">
        {money(i.amountCents)}
      </Row>
      <Row label={t.paid} id="paid">
        {money(i.paidCents)}
      </Row>
      {i.pixPayload && (
        <Row label={t.pixCode} id="pix-code">
          <code>{i.pixPayload}</code> <Copy content={i.pixPayload} />
          {i.pixImage && (
            <img src={i.pixImage} alt="PIX QR" className="size-32" data-testid="invoice-payments-pix-qr" />
          )}
        </Row>
      )}
      {i.billetLine && (
        <Row label={t.billetLine} id="billet-line">
          <code>{i.billetLine}</code> <Copy content={i.billetLine} />
          {i.billetUrl && (
            <a href={i.billetUrl} target="_blank" rel="noreferrer" className="text-ui-fg-interactive block">
              {t.billetLink}
            </a>
          )}
        </Row>
      )}
      {i.refunds.length > 0 && (
        <Row label={t.refunds} id="refunds">
          {i.refunds.map((r) => (
            <div key={r.id}>
              {money(r.amountCents)} <Badge size="2xsmall">{r.state}</Badge>
            </div>
          ))}
        </Row>
      )}
      <Row label={t.refundable} id="refundable">
        {money(i.refundableCents)}
      </Row>
      {i.tracking.map((c) => (
        <Row key={c.code} label={t.tracking} id="tracking">
          {c.code} <Badge size="2xsmall">{c.status === 'sent' ? t.atService : t.notYet}</Badge>
        </Row>
      ))}
      {i.alerts.length > 0 && (
        <Row label={t.alerts} id="alerts">
          {i.alerts.map((a, n) => (
            <div
              key={n}
              className={a.acknowledged ? '' : 'text-ui-fg-error'}
            >{`${a.kind}: ${a.message}`}</div>
          ))}
        </Row>
      )}
    </div>
  );
}

/** Medusa's order page: the invoices of the order's payment sessions of the provider. */
export function OrderInvoiceWidget({ data }: { data: { id: string } }) {
  const t = texts();
  const [body, error] = useAdminJson<{ invoices: InvoiceView[] }>(`/orders/${encodeURIComponent(data.id)}`);
  if (body?.invoices.length === 0) return null;
  return (
    <Container className="divide-y p-0" data-testid="invoice-payments-widget">
      <Heading level="h2" className="px-6 py-4">
        {t.title}
      </Heading>
      {error && <Text className="text-ui-fg-error px-6 py-4">{`${t.failed}: ${error}`}</Text>}
      {body?.invoices.map((invoice) => (
        <Invoice key={invoice.id} invoice={invoice} />
      ))}
    </Container>
  );
}

export const config = defineWidgetConfig({ zone: ['order.details.side'] });
