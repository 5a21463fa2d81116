import { IsNull, type Repository } from 'typeorm';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { InvoiceIdentity } from './invoice-identity';
import type { Adoption } from './late-invoice.port';

/**
 * THE record of a service invoice, identity-checked ({@link InvoiceIdentity}): the record holding its number, else
 * the attempt whose referrer it has, but only while that attempt holds no invoice yet; a record already tied to
 * another invoice never takes this one's status (a second invoice under its referrer has no record of its own).
 * `byReferrer` replaces the referrer step where the checkout adopts late and duplicate invoices (it applies the
 * same rule and also links, cancels or alerts). `foreign` says why a record that matched is not the invoice's.
 */
export async function recordOfInvoice(
  rows: Repository<InvoiceRecord>,
  identity: InvoiceIdentity,
  invoice: Invoice,
  byReferrer?: (invoice: Invoice) => Promise<Adoption>,
): Promise<Adoption> {
  const byNumber = invoice.id ? await rows.findOneBy({ gatewayId: invoice.id }) : null;
  if (byNumber) {
    const foreign = await identity.whyNotOurs(invoice, byNumber, 'number');
    return { record: foreign ? null : byNumber, foreign };
  }
  if (!invoice.referrer) return { record: null, foreign: null };
  if (byReferrer) return byReferrer(invoice);
  const unlinked = await rows.findOneBy({ referrer: invoice.referrer, gatewayId: IsNull() });
  if (!unlinked) return { record: null, foreign: null };
  const foreign = await identity.whyNotOurs(invoice, unlinked, 'referrer');
  return { record: foreign ? null : unlinked, foreign };
}
