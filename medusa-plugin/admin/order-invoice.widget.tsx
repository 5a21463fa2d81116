import { defineWidgetConfig } from '@medusajs/admin-sdk';
import { Badge, Container, Copy, Heading, StatusBadge, Text } from '@medusajs/ui';
import { useEffect, useState, type ReactNode } from 'react';
import { getJson, money, texts } from './texts.js';

/** What `GET /admin/invoice-payments/orders/:id` answers per invoice (`MedusaOrderInvoiceView`), as shown here. */
interface InvoiceView {
  id: string;
  method: 'pix' | 'billet' | 'card';
  statusCode: number | null;
  statusName: string | null;
  statusText: string | null;
  amountCents: number;
  paidCents: number | null;
  refundableCents: number;
  pixPayload: string | null;
  pixImage: string | null;
  billetLine: string | null;
  billetUrl: string | null;
  refunds: Array<{ id: string; amountCents: number; state: string }>;
  tracking: Array<{ code: string; status: string }>;
  alerts: Array<{ kind: string; message: string; acknowledged: boolean }>;
}

const PAID = [4, 5, 8];
const ENDED = [6, 7, 10, 11, 14];

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-2 items-start gap-x-2 px-6 py-2" data-testid={testId}>
      <Text size="small" weight="plus" leading="compact">
        {label}
      </Text>
      <div className="text-ui-fg-subtle txt-small break-all">{children}</div>
    </div>
  );
}

function Invoice({ invoice }: { invoice: InvoiceView }) {
  const t = texts();
  const code = invoice.statusCode ?? -1;
  const color = PAID.includes(code) ? 'green' : ENDED.includes(code) ? 'red' : 'orange';
  return (
    <div className="divide-y" data-testid="invoice-payments-invoice">
      <div className="flex items-center justify-between px-6 py-3">
        <Text weight="plus" data-testid="invoice-payments-method">
          {t.method[invoice.method]}
        </Text>
        <StatusBadge color={color} data-testid="invoice-payments-status">
          {invoice.statusText ?? invoice.statusName ?? '—'}
        </StatusBadge>
      </div>
      <Row label={t.amount} testId="invoice-payments-amount">
        {money(invoice.amountCents)}
      </Row>
      <Row label={t.paid} testId="invoice-payments-paid">
        {money(invoice.paidCents)}
      </Row>
      {invoice.pixPayload && (
        <Row label={t.pixCode} testId="invoice-payments-pix-code">
          <span className="flex items-start gap-1">
            <code className="line-clamp-3">{invoice.pixPayload}</code>
            <Copy content={invoice.pixPayload} />
          </span>
          {invoice.pixImage && (
            <img
              src={invoice.pixImage}
              alt="PIX QR"
              className="mt-2 size-32"
              data-testid="invoice-payments-pix-qr"
            />
          )}
        </Row>
      )}
      {invoice.billetLine && (
        <Row label={t.billetLine} testId="invoice-payments-billet-line">
          <span className="flex items-start gap-1">
            <code>{invoice.billetLine}</code>
            <Copy content={invoice.billetLine} />
          </span>
          {invoice.billetUrl && (
            <a href={invoice.billetUrl} target="_blank" rel="noreferrer" className="text-ui-fg-interactive">
              {t.billetLink}
            </a>
          )}
        </Row>
      )}
      {invoice.refunds.length > 0 && (
        <Row label={t.refunds} testId="invoice-payments-refunds">
          {invoice.refunds.map((r) => (
            <div key={r.id}>
              {money(r.amountCents)} <Badge size="2xsmall">{r.state}</Badge>
            </div>
          ))}
        </Row>
      )}
      <Row label={t.refundable} testId="invoice-payments-refundable">
        {money(invoice.refundableCents)}
      </Row>
      {invoice.tracking.map((code) => (
        <Row key={code.code} label={t.tracking} testId="invoice-payments-tracking">
          {code.code} <Badge size="2xsmall">{code.status === 'sent' ? t.atService : t.notYet}</Badge>
        </Row>
      ))}
      {invoice.alerts.length > 0 && (
        <Row label={t.alerts} testId="invoice-payments-alerts">
          {invoice.alerts.map((a, i) => (
            <div key={i}>
              <Badge size="2xsmall" color={a.acknowledged ? 'grey' : 'red'}>
                {a.kind}
              </Badge>{' '}
              {a.message}
            </div>
          ))}
        </Row>
      )}
    </div>
  );
}

/** The invoices of this order's payment sessions of the provider, on Medusa's order page. */
export function OrderInvoiceWidget({ data }: { data: { id: string } }) {
  const t = texts();
  const [invoices, setInvoices] = useState<InvoiceView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<{ invoices: InvoiceView[] }>(`/admin/invoice-payments/orders/${encodeURIComponent(data.id)}`)
      .then((body) => setInvoices(body.invoices))
      .catch((err: Error) => setError(err.message));
  }, [data.id]);
  if (invoices && invoices.length === 0) return null;
  return (
    <Container className="divide-y p-0" data-testid="invoice-payments-widget">
      <div className="px-6 py-4">
        <Heading level="h2">{t.title}</Heading>
      </div>
      {error && <Text className="text-ui-fg-error px-6 py-4">{`${t.failed}: ${error}`}</Text>}
      {invoices?.map((invoice) => (
        <Invoice key={invoice.id} invoice={invoice} />
      ))}
    </Container>
  );
}

export const config = defineWidgetConfig({ zone: ['order.details.side'] });
