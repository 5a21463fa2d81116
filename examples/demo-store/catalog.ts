/** A product of the demo catalog. Prices are integer cents, taxes included (as Brazilian prices are). */
export interface CatalogProduct {
  id: string;
  title: string;
  thumbnail: string;
  /** Unit price in cents. */
  price: number;
  /** Physical goods are shipped (and need an address); digital ones are not. */
  requires_shipping: boolean;
}

/**
 * The store's catalog. A real backend reads it from its database; the storefront only names products and quantities,
 * so a customer can never set a price.
 */
export const CATALOG: readonly CatalogProduct[] = [
  {
    id: 'prod_cafe',
    title: 'Café especial do Cerrado 500 g',
    thumbnail: 'https://demo-store.example/images/cafe.jpg',
    price: 4990,
    requires_shipping: true,
  },
  {
    id: 'prod_caneca',
    title: 'Caneca esmaltada',
    thumbnail: 'https://demo-store.example/images/caneca.jpg',
    price: 3550,
    requires_shipping: true,
  },
  {
    id: 'prod_ebook',
    title: 'E-book: métodos de preparo',
    thumbnail: 'https://demo-store.example/images/ebook.jpg',
    price: 1990,
    requires_shipping: false,
  },
];

/** Flat shipping rate for orders with physical items (Correios PAC), in cents. */
export const FLAT_SHIPPING_CENTS = 1500;

/** The product with this id, or undefined. */
export function findProduct(id: string): CatalogProduct | undefined {
  return CATALOG.find((p) => p.id === id);
}
