import { useLingui } from '@lingui/react/macro';

/**
 * The words of the block's codes in the admin's language (the dashboard's Lingui catalogs, `i18n/*.po`): the
 * status of each code the service lists (spec §3), the method, a refund's state, a tracking code's, an alert's kind
 * (the module's `ALERT_KINDS`, named as its admin page names them).
 */
export function useInvoiceWords() {
  const { t } = useLingui();
  const statuses: Record<number, string> = {
    1: t`Awaiting payment`,
    2: t`Processing`,
    3: t`Payment scheduled`,
    4: t`Authorized`,
    5: t`Paid`,
    6: t`Canceled`,
    7: t`Awaiting refund`,
    8: t`Partially refunded`,
    9: t`Refunded`,
    10: t`Contested`,
    12: t`Payment denied`,
    15: t`Payment overdue`,
    16: t`Payment error`,
  };
  const methods: Record<string, string> = { pix: t`PIX`, billet: t`Bank slip`, card: t`Credit card` };
  const refunds: Record<string, string> = {
    pending: t`Requested`,
    unknown: t`Being confirmed`,
    succeeded: t`Refunded`,
    failed: t`Failed`,
  };
  const alerts: Record<string, string> = {
    paid_after_cancel: t`Paid after cancel`,
    amount_mismatch: t`Amount mismatch`,
    webhook_dead_letter: t`Failed webhook`,
    duplicate_paid: t`Order paid twice`,
    creation_unresolved: t`Creation unanswered`,
    invoice_number_clash: t`Invoice number repeated`,
    foreign_invoice: t`Invoice not sent by this store`,
    tracking_failed: t`Tracking not sent`,
    implausible_amount: t`Implausible amount`,
    refund_unresolved: t`Refund unanswered`,
    captured_amount_changed: t`Paid amount changed`,
  };
  return {
    /** A code the spec does not list keeps the service's own name, else the code. */
    status: (code: number | null, name: string | null) =>
      code === null ? t`No status yet` : (statuses[code] ?? name ?? String(code)),
    method: (method: string) => methods[method] ?? method,
    refund: (state: string) => refunds[state] ?? state,
    /** A kind this version does not name (a newer module's) keeps its code. */
    alert: (kind: string) => alerts[kind] ?? kind,
    tracking: (status: string) => (status === 'sent' ? t`at the service` : t`not at the service yet`),
  };
}
