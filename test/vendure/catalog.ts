import { LanguageCode } from '@vendure/core';
import type { SimpleGraphQLClient } from '@vendure/testing';
import { gql } from './graphql';

/** Brazil, 10 % tax, Correios at R$ 15,00, and the plugin's payment method. */
export const INITIAL_DATA = {
  defaultLanguage: LanguageCode.en,
  defaultZone: 'Brasil',
  countries: [{ name: 'Brasil', code: 'BR', zone: 'Brasil' }],
  taxRates: [{ name: 'Padrão', percentage: 10 }],
  shippingMethods: [{ name: 'Correios', price: 1500 }],
  paymentMethods: [{ name: 'Pix, boleto e cartão', handler: { code: 'invoice-payments', arguments: [] } }],
  collections: [],
};

/** The channel in BRL with tax-inclusive prices, then one product priced in BRL. */
export async function seedCatalog(admin: SimpleGraphQLClient) {
  const { activeChannel } = await admin.query(gql`
    query {
      activeChannel {
        id
      }
    }
  `);
  await admin.query(
    gql`
      mutation ($input: UpdateChannelInput!) {
        updateChannel(input: $input) {
          ... on Channel {
            id
          }
        }
      }
    `,
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
    gql`
      mutation ($input: CreateProductInput!) {
        createProduct(input: $input) {
          id
        }
      }
    `,
    {
      input: { translations: [{ languageCode: 'en', name: 'Camiseta', slug: 'camiseta', description: '' }] },
    },
  );
  const { createProductVariants } = await admin.query(
    gql`
      mutation ($input: [CreateProductVariantInput!]!) {
        createProductVariants(input: $input) {
          id
        }
      }
    `,
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
  const { shippingMethods } = await admin.query(gql`
    query {
      shippingMethods {
        items {
          id
        }
      }
    }
  `);
  return {
    variantId: createProductVariants[0].id as string,
    shippingMethodId: shippingMethods.items[0].id as string,
  };
}
