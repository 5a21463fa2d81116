import { api, Badge, CopyableText, useLocalFormat, useQuery } from '@vendure/dashboard';
import { Trans, useLingui } from '@lingui/react/macro';
import type { ReactNode } from 'react';
import { INVOICES_QUERY, type OrderInvoice } from './invoice-payments.graphql';
import { useInvoiceWords } from './invoice-words';

/** The Badge variant of each `statusTone` (the module's status table): green, orange, red, grey. */
const TONE_VARIANT = {
  paid: 'success',
  open: 'warning',
  ended: 'destructive',
  expired: 'secondary',
} as const;

function Row({ label, id, children }: { label: ReactNode; id: string; children: ReactNode }) {
  return (
    <div
      className="grid grid-cols-1 gap-1 py-2 sm:grid-cols-[12rem_1fr] sm:gap-4"
      data-testid={`invoice-payments-${id}`}
    >
      <div className="text-sm font-medium">{label}</div>
      <div className="text-muted-foreground min-w-0 text-sm break-all">{children}</div>
    </div>
  );
}

function Invoice({ invoice: i }: { invoice: OrderInvoice }) {
  const words = useInvoiceWords();
  const { formatCurrency, formatDate } = useLocalFormat();
  const money = (cents: number | null) => (cents === null ? '—' : formatCurrency(cents, i.currencyCode));
  const tone = (i.statusTone && TONE_VARIANT[i.statusTone]) ?? 'outline';
  // A calendar date: shown as that day wherever the admin is.
  const day = (date: string) => formatDate(`${date}T12:00:00Z`, { dateStyle: 'medium', timeZone: 'UTC' });
  return (
    <div className="divide-y" data-testid="invoice-payments-invoice">
      <div className="flex flex-wrap items-center justify-between gap-2 pb-2">
        <span className="font-medium" data-testid="invoice-payments-method">
          {words.method(i.method)}
        </span>
        <Badge variant={tone} data-testid="invoice-payments-status" data-tone={i.statusTone}>
          {words.status(i.statusCode, i.statusName)}
        </Badge>
      </div>
      <Row label={<Trans>Invoice number</Trans>} id="number">
        {i.invoiceNumber ? <CopyableText value={i.invoiceNumber}>{i.invoiceNumber}</CopyableText> : '—'}
      </Row>
      {/* The same rule as Medusa's widget (the shared view's payBy): not while a payment is being processed. */}
      {i.payBy && (
        <Row label={<Trans>Due date</Trans>} id="due-date">
          {day(i.payBy)}
        </Row>
      )}
      <Row label={<Trans>Amount</Trans>} id="amount">
        {money(i.amount)}
      </Row>
      <Row label={<Trans>Paid</Trans>} id="paid">
        {money(i.paid)}
      </Row>
      {i.card && (
        <Row label={<Trans>Card</Trans>} id="card">
          {`${i.card.brand ?? ''} •••• ${i.card.last4 ?? '????'}`.trim()}
          {i.installments > 1 && ` (${i.installments}×)`}
        </Row>
      )}
      {i.pixPayload && (
        <Row label={<Trans>PIX copy-and-paste code</Trans>} id="pix-code">
          <CopyableText value={i.pixPayload}>
            <code className="font-mono text-xs">{i.pixPayload}</code>
          </CopyableText>
          {i.pixImage && (
            <img
              src={i.pixImage}
              alt="PIX QR"
              className="mt-2 size-32"
              data-testid="invoice-payments-pix-qr"
            />
          )}
        </Row>
      )}
      {i.billetLine && (
        <Row label={<Trans>Bank slip line</Trans>} id="billet-line">
          <CopyableText value={i.billetLine}>
            <code className="font-mono text-xs">{i.billetLine}</code>
          </CopyableText>
          {i.billetUrl && (
            <a href={i.billetUrl} target="_blank" rel="noreferrer" className="text-primary block underline">
              <Trans>Open the bank slip</Trans>
            </a>
          )}
        </Row>
      )}
      {i.refunds.length > 0 && (
        <Row label={<Trans>Refunds</Trans>} id="refunds">
          {i.refunds.map((r) => (
            <div key={r.id} className="flex flex-wrap items-center gap-2">
              {money(r.amount)} <Badge variant="outline">{words.refund(r.state)}</Badge>
            </div>
          ))}
        </Row>
      )}
      {(i.paid ?? 0) > 0 && (
        <Row label={<Trans>Still refundable</Trans>} id="refundable">
          {money(i.refundable)}
        </Row>
      )}
      {i.tracking.map((c) => (
        <Row key={c.code} label={<Trans>Tracking code</Trans>} id="tracking">
          {c.code} <Badge variant="outline">{words.tracking(c.status)}</Badge>
        </Row>
      ))}
      {i.alerts.length > 0 && (
        <Row label={<Trans>Alerts</Trans>} id="alerts">
          {i.alerts.map((a, n) => (
            <div
              key={n}
              className={a.acknowledged ? '' : 'text-destructive'}
            >{`${words.alert(a.kind)}: ${a.message}`}</div>
          ))}
        </Row>
      )}
    </div>
  );
}

/** The order's invoices, newest first, from the Admin API's `invoicePaymentsForOrder`. */
export function InvoicePaymentsBlock({ orderId }: { orderId: string }) {
  const { t } = useLingui();
  const { data, error, isPending } = useQuery({
    queryKey: ['invoicePaymentsForOrder', orderId],
    queryFn: () => api.query<{ invoicePaymentsForOrder: OrderInvoice[] }>(INVOICES_QUERY, { orderId }),
    enabled: orderId !== '',
  });
  if (isPending) return null;
  if (error) {
    return (
      <div className="text-destructive text-sm">{`${t`Could not load the invoice`}: ${error.message}`}</div>
    );
  }
  const invoices = data?.invoicePaymentsForOrder ?? [];
  return (
    <div className="space-y-6" data-testid="invoice-payments-block">
      {invoices.length === 0 && (
        <div className="text-muted-foreground text-sm">
          <Trans>No invoice payment for this order.</Trans>
        </div>
      )}
      {invoices.map((invoice) => (
        <Invoice key={invoice.id} invoice={invoice} />
      ))}
    </div>
  );
}
