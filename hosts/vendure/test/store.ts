import { createServer } from 'node:net';
import { LanguageCode, mergeConfig } from '@vendure/core';
import {
  createTestEnvironment,
  registerInitializer,
  SimpleGraphQLClient,
  SqljsInitializer,
  testConfig,
} from '@vendure/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import type { SandboxServer } from 'nestjs-invoice-payments/sandbox';

// Vendure sends anonymous usage data unless told not to: tests talk to nothing outside this machine.
process.env.VENDURE_DISABLE_TELEMETRY = 'true';

/** Brazil, 10 % tax, Correios at R$ 15,00, and the plugin's payment method. */
const INITIAL_DATA = {
  defaultLanguage: LanguageCode.en,
  defaultZone: 'Brasil',
  countries: [{ name: 'Brasil', code: 'BR', zone: 'Brasil' }],
  taxRates: [{ name: 'Padrão', percentage: 10 }],
  shippingMethods: [{ name: 'Correios', price: 1500 }],
  paymentMethods: [{ name: 'Pix, boleto e cartão', handler: { code: 'invoice-payments', arguments: [] } }],
  collections: [],
};

export interface Store {
  url: string;
  admin: SimpleGraphQLClient;
  shop: SimpleGraphQLClient;
  variantId: string;
  shippingMethodId: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A Vendure server from the store's config (src/vendure-config.ts: the plugin and the dashboard built into dist/),
 * started by `@vendure/testing` on SQLite (sql.js) against the sandbox, with one product priced in BRL.
 */
export async function startStore(sandbox: SandboxServer): Promise<Store> {
  const port = await freePort();
  process.env.PORT = String(port);
  process.env.PAYMENTS_URL = sandbox.url;
  // The config reads its environment when loaded: after the two lines above.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { config } = require('../src/vendure-config') as typeof import('../src/vendure-config');
  registerInitializer('sqljs', new SqljsInitializer(mkdtempSync(join(tmpdir(), 'nip-vendure-host-'))));
  const merged = mergeConfig(testConfig, {
    apiOptions: { port },
    authOptions: config.authOptions,
    plugins: config.plugins,
  });
  const { server } = createTestEnvironment(merged);
  await server.init({ initialData: INITIAL_DATA, customerCount: 1 });
  const url = `http://127.0.0.1:${port}`;
  const admin = new SimpleGraphQLClient(merged, `${url}/admin-api`);
  const shop = new SimpleGraphQLClient(merged, `${url}/shop-api`);
  await admin.asSuperAdmin();
  return { url, admin, shop, ...(await seedCatalog(admin)), close: () => server.destroy() };
}

async function seedCatalog(admin: SimpleGraphQLClient) {
  const { activeChannel } = await admin.query(parse(`query { activeChannel { id } }`));
  await admin.query(
    parse(
      `mutation ($input: UpdateChannelInput!) { updateChannel(input: $input) { ... on Channel { id } } }`,
    ),
    {
      input: {
        id: activeChannel.id,
        defaultCurrencyCode: 'BRL',
        availableCurrencyCodes: ['BRL'],
        pricesIncludeTax: true,
      },
    },
  );
  const { createProduct } = await admin.query(
    parse(`mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`),
    {
      input: { translations: [{ languageCode: 'en', name: 'Camiseta', slug: 'camiseta', description: '' }] },
    },
  );
  const { createProductVariants } = await admin.query(
    parse(`mutation ($input: [CreateProductVariantInput!]!) { createProductVariants(input: $input) { id } }`),
    {
      input: [
        {
          productId: createProduct.id,
          sku: 'CAMISETA-M',
          price: 5990,
          trackInventory: 'FALSE',
          translations: [{ languageCode: 'en', name: 'Camiseta M' }],
        },
      ],
    },
  );
  const { shippingMethods } = await admin.query(parse(`query { shippingMethods { items { id } } }`));
  return {
    variantId: createProductVariants[0].id as string,
    shippingMethodId: shippingMethods.items[0].id as string,
  };
}

const ORDER = `... on Order { id code state } ... on ErrorResult { errorCode message }`;

/** A guest's cart ready to pay (two shirts, a customer, a Brazilian address, Correios), its invoice started. */
export async function checkout(store: Store, email: string, payment: Record<string, unknown>) {
  const { shop } = store;
  await shop.asAnonymousUser();
  const steps: Array<[string, Record<string, unknown>]> = [
    [
      `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 2) { ${ORDER} } }`,
      { id: store.variantId },
    ],
    [
      `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { ${ORDER} } }`,
      { input: { firstName: 'Maria', lastName: 'Silva', emailAddress: email } },
    ],
    [
      `mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { ${ORDER} } }`,
      {
        input: {
          fullName: 'Maria Silva',
          streetLine1: 'Rua das Flores, 100',
          streetLine2: 'Centro',
          city: 'São Paulo',
          province: 'SP',
          postalCode: '01001-000',
          countryCode: 'BR',
          phoneNumber: '11987654321',
        },
      },
    ],
    [
      `mutation ($ids: [ID!]!) { setOrderShippingMethod(shippingMethodId: $ids) { ${ORDER} } }`,
      { ids: [store.shippingMethodId] },
    ],
  ];
  let orderId = '';
  for (const [document, variables] of steps) {
    const answer = Object.values(await shop.query(parse(document), variables))[0] as {
      id?: string;
      message?: string;
    };
    if (!answer.id) throw new Error(`shop API refused: ${answer.message}`);
    orderId = answer.id;
  }
  const { startInvoicePayment } = await shop.query(
    parse(`mutation ($input: StartInvoicePaymentInput!) {
      startInvoicePayment(input: $input) { invoiceId pix { payload } billet { line } card { brand last4 } }
    }`),
    { input: payment },
  );
  return {
    orderId,
    invoiceId: startInvoicePayment.invoiceId as string,
    pixPayload: startInvoicePayment.pix?.payload as string | undefined,
    billetLine: startInvoicePayment.billet?.line as string | undefined,
    card: startInvoicePayment.card as { brand: string; last4: string } | null,
  };
}

/** Waits until `check` holds, or fails at `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
