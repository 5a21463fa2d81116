import type { DataSource } from 'typeorm';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SESSION_PREFIX, type MedusaContainer, type MedusaQuery } from './plugin';

/** Medusa's cart ids (`cart_` and a ULID); a looser bound, so a store's own id scheme still passes. */
const CART_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What is wrong with a `:cart_id` from the path, or `null`. */
export function cartIdProblem(id: unknown): string | null {
  return typeof id === 'string' && CART_ID.test(id)
    ? null
    : 'must be a Medusa cart id (1 to 64 letters, digits, _ or -)';
}

interface CartRow {
  id: string;
  customer_id?: string | null;
  payment_collection?: {
    payment_sessions?: Array<{
      id: string;
      provider_id: string;
      created_at?: string | Date;
      data?: Record<string, unknown> | null;
    }> | null;
  } | null;
}

/**
 * The invoice record of the cart's current payment session of this provider, or `null` when the cart does not exist,
 * is not the caller's, or has no session of ours (one answer for all: a 404 tells a stranger nothing).
 *
 * The cart id is the guest's secret, as for Medusa's own `GET /store/carts/:id`. A cart of a registered customer is
 * read only by that customer signed in, or without a customer signed in (the id alone, as Medusa's route does); a
 * signed-in customer never reads another customer's cart.
 */
export async function cartPaymentRecord(
  container: MedusaContainer,
  dataSource: DataSource,
  cartId: string,
  actorId: string | undefined,
): Promise<InvoiceRecord | null> {
  const { data } = await container.resolve<MedusaQuery>('query').graph({
    entity: 'cart',
    fields: [
      'id',
      'customer_id',
      'payment_collection.payment_sessions.id',
      'payment_collection.payment_sessions.provider_id',
      'payment_collection.payment_sessions.created_at',
      'payment_collection.payment_sessions.data',
    ],
    filters: { id: cartId },
  });
  const cart = data[0] as CartRow | undefined;
  if (!cart) return null;
  if (actorId && cart.customer_id && cart.customer_id !== actorId) return null;
  const sessions = (cart.payment_collection?.payment_sessions ?? [])
    .filter((s) => s.provider_id.startsWith(SESSION_PREFIX))
    .sort((a, b) => new Date(b.created_at ?? 0).getTime() - new Date(a.created_at ?? 0).getTime());
  // The session's data names its record (the provider's answer overwrites the storefront's input); the record must
  // be that session's own.
  const recordId = sessions[0]?.data?.invoiceRecordId;
  if (typeof recordId !== 'string' || !recordId) return null;
  const record = await dataSource.getRepository(InvoiceRecord).findOne({ where: { id: recordId } });
  return record?.orderId === sessions[0].id ? record : null;
}
