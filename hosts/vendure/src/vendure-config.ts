import { join } from 'node:path';
import type { VendureConfig } from '@vendure/core';
import { DashboardPlugin } from '@vendure/dashboard/plugin';
import { InvoicePaymentsPlugin } from 'nestjs-invoice-payments/vendure';

/**
 * The store's config as a Vendure app writes it: the invoice-payments plugin and Vendure's dashboard. The dashboard's
 * build (vite.config.mts) reads it to find the plugins' dashboard extensions and the Admin API's schema; the test
 * starts a server from it against the sandbox (`PAYMENTS_URL`), on SQLite.
 */
export const config: VendureConfig = {
  apiOptions: { port: Number(process.env.PORT ?? 3000), adminApiPath: 'admin-api', shopApiPath: 'shop-api' },
  authOptions: {
    tokenMethod: ['cookie', 'bearer'],
    superadminCredentials: { identifier: 'superadmin', password: 'superadmin' },
    cookieOptions: { secret: process.env.COOKIE_SECRET ?? 'host-test-cookie-secret' },
  },
  // The test runs it on @vendure/testing's SQLite (sql.js); a store has its own database here.
  dbConnectionOptions: { type: 'sqljs', synchronize: true },
  paymentOptions: { paymentMethodHandlers: [] },
  plugins: [
    InvoicePaymentsPlugin.init({
      gateway: {
        baseUrl: process.env.PAYMENTS_URL ?? 'http://127.0.0.1:9',
        accessToken: process.env.PAYMENTS_TOKEN ?? 'sandbox-token',
        mode: 'sandbox',
      },
      checkout: {
        publicWebhookUrl: `http://127.0.0.1:${process.env.PORT ?? 3000}/webhooks/invoice-payments`,
      },
    }),
    DashboardPlugin.init({ route: 'dashboard', appDir: join(__dirname, '../dist/dashboard') }),
  ],
};
