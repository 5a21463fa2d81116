import { useLingui } from '@lingui/react/macro';

/**
 * The words of the block's codes in the admin's language (the dashboard's Lingui catalogs, `i18n/*.po`): the
 * status of each code the service lists (spec §3), the method, a refund's state, a tracking code's.
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
  return {
    /** A code the spec does not list keeps the service's own name, else the code. */
    status: (code: number | null, name: string | null) =>
      code === null ? t`No status yet` : (statuses[code] ?? name ?? String(code)),
    method: (method: string) => methods[method] ?? method,
    refund: (state: string) => refunds[state] ?? state,
    tracking: (status: string) => (status === 'sent' ? t`at the service` : t`not at the service yet`),
  };
}
