import type { DocumentNode } from 'graphql';
import { gqlWith } from './graphql';
import type { VendureTestEnv } from './support';

/** The shop API as a shopper reaches it: Vendure's test client, or a browser page's own `fetch`. */
export interface ShopClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as each test expects them
  query(document: DocumentNode, variables?: Record<string, unknown>): Promise<any>;
  /** A new, anonymous session. */
  asAnonymousUser(): Promise<void>;
}

/** What the shop flows need of a test environment: its shop client and the catalog. */
export type ShopEnv = Pick<VendureTestEnv, 'variantId' | 'shippingMethodId'> & { shop: ShopClient };

/** A valid CPF (check digits right), as the sandbox requires. */
export const CPF = '529.982.247-25';

export interface AdminOrder {
  id: string;
  code: string;
  state: string;
  totalWithTax: number;
  lines: Array<{ id: string; quantity: number }>;
  payments: Array<{
    id: string;
    state: string;
    amount: number;
    method: string;
    transactionId: string | null;
    refunds: Array<{ id: string; state: string; total: number }>;
  }>;
  history: { items: Array<{ type: string; data: Record<string, unknown> }> };
}

const ORDER_FIELDS = `
  ... on Order { id code state totalWithTax }
  ... on ErrorResult { errorCode message }
`;

/** Two of the variant `id` into the active order. */
export const ADD_ITEM = gqlWith(
  `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 2) { ${ORDER_FIELDS} } }`,
);

/** A guest's cart, ready to pay: two shirts, a customer, a Brazilian address, Correios. */
export async function cartReadyToPay(env: ShopEnv, email: string): Promise<{ id: string; code: string }> {
  await env.shop.asAnonymousUser();
  const { addItemToOrder } = await env.shop.query(ADD_ITEM, { id: env.variantId });
  expectOrder(addItemToOrder);
  const customer = await env.shop.query(
    gqlWith(
      `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { ${ORDER_FIELDS} } }`,
    ),
    { input: { firstName: 'Maria', lastName: 'Silva', emailAddress: email } },
  );
  expectOrder(customer.setCustomerForOrder);
  const address = await env.shop.query(
    gqlWith(
      `mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { ${ORDER_FIELDS} } }`,
    ),
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
  );
  expectOrder(address.setOrderShippingAddress);
  const shipping = await env.shop.query(
    gqlWith(`mutation ($ids: [ID!]!) { setOrderShippingMethod(shippingMethodId: $ids) { ${ORDER_FIELDS} } }`),
    { ids: [env.shippingMethodId] },
  );
  const order = expectOrder(shipping.setOrderShippingMethod);
  return { id: order.id, code: order.code };
}

export const START_PAYMENT = gqlWith(`
  mutation ($input: StartInvoicePaymentInput!) {
    startInvoicePayment(input: $input) {
      invoiceRecordId method invoiceId statusCode statusText sessionStatus amount dueDate installments
      pix { payload image }
      billet { line barcode url }
      card { brand last4 }
      paymentUrl orderState orderCode
    }
  }
`);

export async function startPayment(env: ShopEnv, input: Record<string, unknown>) {
  const { startInvoicePayment } = await env.shop.query(START_PAYMENT, { input });
  return startInvoicePayment as {
    invoiceRecordId: string;
    method: string;
    invoiceId: string | null;
    statusCode: number | null;
    sessionStatus: string;
    amount: number;
    pix: { payload: string | null; image: string | null } | null;
    billet: { line: string | null; barcode: string | null; url: string | null } | null;
    card: { brand: string | null; last4: string | null } | null;
    orderState: string;
    orderCode: string;
  };
}

/** A card payment with a token the sandbox made for `number` (as the service's script would in the browser). */
export function startCardPayment(env: VendureTestEnv, number: string, installments?: number) {
  const token = env.sandbox.controls.createCardToken({ number, holder: 'MARIA SILVA', expiry: '12/30' });
  return startPayment(env, {
    method: 'card',
    document: CPF,
    card: { token: token.token, expiry: '12/30', holderName: 'MARIA SILVA' },
    ...(installments ? { installments } : {}),
  });
}

export async function adminOrder(env: VendureTestEnv, id: string): Promise<AdminOrder> {
  const { order } = await env.admin.query(
    gqlWith(`
      query ($id: ID!) {
        order(id: $id) {
          id code state totalWithTax
          lines { id quantity }
          payments { id state amount method transactionId refunds { id state total } }
          history(options: { take: 100 }) { items { type data } }
        }
      }
    `),
    { id },
  );
  return order as AdminOrder;
}

function expectOrder(result: { id?: string; code?: string; errorCode?: string; message?: string }) {
  if (!result?.id) throw new Error(`shop API refused: ${result?.errorCode} ${result?.message}`);
  return result as { id: string; code: string };
}
