import { HistoryService, Logger, RequestContext } from '@vendure/core';

const LOG_CONTEXT = 'InvoicePaymentsPlugin';

/**
 * Writes `note` on the order's history (admin only) and in the log: what needs a person (a contestation, money
 * paid to a canceled invoice, an invoice that could not be canceled) is where the store's staff look.
 */
export async function addOrderNote(
  history: HistoryService,
  ctx: RequestContext,
  orderId: string,
  note: string,
): Promise<void> {
  Logger.warn(`order ${orderId}: ${note}`, LOG_CONTEXT);
  // `ORDER_NOTE` is HistoryEntryType's value; the enum lives in @vendure/common, not re-exported by @vendure/core.
  await history.createHistoryEntryForOrder(
    { ctx, orderId, type: 'ORDER_NOTE' as never, data: { note } as never },
    false,
  );
}
