import { defineConfig } from '@medusajs/framework/utils';
import type { InvoicePaymentsMedusaOptions } from 'nestjs-invoice-payments/medusa';

/*
 * The test store's Medusa configuration, as a store writes it: the package as a plugin and its provider under the
 * Payment module, with the same options, and no file of the package's copied into the app. The values come from the
 * environment `test/app/medusa-app.ts` sets.
 */
const env = (name: string): string => process.env[name] ?? '';

/* A checkout option a store may set from its environment: the order's "what now" page (the guest spec sets it). */
const orderUrlTemplate = env('INVOICE_ORDER_URL_TEMPLATE');

const invoicePayments: InvoicePaymentsMedusaOptions = {
  gateway: { baseUrl: env('PAYMENTS_URL'), accessToken: env('PAYMENTS_TOKEN'), mode: 'sandbox' },
  checkout: {
    publicWebhookUrl: `${env('MEDUSA_URL')}/hooks/payment/invoice-payments_br`,
    ...(orderUrlTemplate ? { orderUrlTemplate } : {}),
  },
  logLevels: ['error', 'warn'],
};

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: env('DATABASE_URL'),
    http: {
      // The storefront's origin(s), as Medusa's starter sets STORE_CORS: its pages call the store API across origins.
      storeCors: env('STORE_CORS') || env('MEDUSA_URL'),
      adminCors: env('MEDUSA_URL'),
      authCors: env('MEDUSA_URL'),
      jwtSecret: env('JWT_SECRET'),
      cookieSecret: env('COOKIE_SECRET'),
    },
  },
  plugins: [{ resolve: 'nestjs-invoice-payments', options: invoicePayments }],
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [{ resolve: 'nestjs-invoice-payments/medusa', id: 'br', options: invoicePayments }],
      },
    },
  ],
});
