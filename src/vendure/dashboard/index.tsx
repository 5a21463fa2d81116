import { defineDashboardExtension } from '@vendure/dashboard';
import { Trans } from '@lingui/react/macro';
import { InvoicePaymentsBlock } from './invoice-payments-block';

/**
 * The plugin's extension of Vendure's React dashboard (the plugin's `dashboard` entry): a block on the order page,
 * after Vendure's payment details, with the order's invoices. The store's dashboard build compiles it (this source
 * ships in the package); its texts are in `i18n/*.po`, merged into the dashboard's own catalogs.
 */
export default defineDashboardExtension({
  pageBlocks: [
    {
      id: 'invoice-payments',
      title: <Trans>Invoice payment</Trans>,
      location: {
        pageId: 'order-detail',
        column: 'main',
        position: { blockId: 'payment-details', order: 'after' },
      },
      requiresPermission: 'ReadOrder',
      component: ({ context }) => <InvoicePaymentsBlock orderId={String(context.entity?.id ?? '')} />,
    },
  ],
});
