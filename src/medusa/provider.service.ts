import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import type { InvoicePaymentSessionData } from '../core/checkout.types';
import { checkOptions } from '../options/resolve';
import { checkoutRequestOf, DEFAULT_DOCUMENT_KEYS } from './order';
import { refundForMedusa } from './refund';
import {
  invoicePaymentsRuntime,
  loadMedusaFramework,
  logger,
  medusaDataSourceOptions,
  runtimeServices,
  toMedusaError,
  webhookAction,
  type MedusaRuntimeServices,
} from './runtime';
import type {
  InvoicePaymentsMedusaOptions,
  MedusaProviderInput as Input,
  MedusaProviderOutput as Output,
  MedusaWebhookActionResult,
} from './types';

const medusa = loadMedusaFramework();
const nothing = async (): Promise<Output> => ({});

/**
 * The Medusa v2 payment provider (`pp_invoice-payments_<id>`): the whole module as a Nest application context inside
 * Medusa; amounts in major units at the boundary, cents inside. See docs/medusa.md.
 */
export class InvoicePaymentsMedusaProvider extends medusa.AbstractPaymentProvider {
  static identifier = 'invoice-payments';

  /** Refuses options that cannot work when Medusa loads the provider, naming the option. */
  static validateOptions(options: Record<string, unknown>): void {
    try {
      medusaDataSourceOptions(checkOptions(options as InvoicePaymentsMedusaOptions));
    } catch (err) {
      throw new medusa.MedusaError('invalid_data', `invoice-payments options: ${(err as Error).message}`);
    }
  }

  constructor(
    cradle: Record<string, unknown>,
    private readonly options: InvoicePaymentsMedusaOptions,
  ) {
    super(cradle, options);
  }

  /** Creates the session's invoice from Medusa's amount and customer (see `buildCheckoutData`), exactly once. */
  async initiatePayment(input: Input): Promise<Output> {
    return this.run(async (provider, services) => {
      const sessionId = input?.data?.session_id;
      if (typeof sessionId !== 'string' || !sessionId)
        throw new medusa.MedusaError('invalid_data', 'data.session_id (set by Medusa) is required');
      const keys = this.options.customerDocumentKeys;
      const { options, ...request } = await checkoutRequestOf(services.checkout, input, sessionId, keys);
      // The options the order was built with go along: the checkout reads them once.
      return this.answer(input, await provider.initiatePayment(request, options));
    });
  }

  /** Not paid yet: asks the service once (a webhook may be late), then `pending_authorization` (docs/medusa.md). */
  async authorizePayment(input: Input): Promise<Output> {
    return this.run(async (provider) => {
      let out = await provider.getPaymentStatus(sessionOf(input));
      if (out.status === 'pending') {
        try {
          await provider.retrievePayment(sessionOf(input));
          out = await provider.getPaymentStatus(sessionOf(input));
        } catch (err) {
          logger.warn(
            `authorize: the service could not be asked, answering from the last report (${(err as Error).message})`,
          );
        }
      }
      // Not paid yet (PIX or bank slip waiting): Medusa completes the cart with the payment awaiting.
      const status = out.status === 'pending' ? 'pending_authorization' : out.status;
      return { status, data: dataOf(out.data) };
    });
  }

  async getPaymentStatus(input: Input): Promise<Output> {
    return this.run(async (provider) => {
      const out = await provider.getPaymentStatus(sessionOf(input));
      return { status: out.status, data: dataOf(out.data) };
    });
  }

  /** Confirms a paid invoice; the service has no capture operation (see `InvoicePaymentProvider.capturePayment`). */
  capturePayment(input: Input): Promise<Output> {
    return this.forward('capturePayment', input);
  }

  /**
   * Refunds Medusa's amount of a paid invoice, once per Medusa refund; a lost answer is confirmed before Medusa is
   * answered, as Medusa keeps no refund pending (see `refundForMedusa`).
   */
  async refundPayment(input: Input): Promise<Output> {
    return this.run(async (_provider, services) => ({
      data: dataOf((await refundForMedusa(services, input)).data),
    }));
  }

  cancelPayment(input: Input): Promise<Output> {
    return this.forward('cancelPayment', input);
  }

  /** Medusa drops the session (another method chosen, cart changed): its invoice is canceled while still payable. */
  deletePayment(input: Input): Promise<Output> {
    return this.forward('deletePayment', input);
  }

  retrievePayment(input: Input): Promise<Output> {
    return this.forward('retrievePayment', input);
  }

  /** A new amount or method cancels the open invoice and creates another for the same session. */
  async updatePayment(input: Input): Promise<Output> {
    return this.run(async (provider, services) => {
      const current = await provider.getPaymentStatus(sessionOf(input));
      const { orderId, method, invoiceRecordId } = current.data;
      const keys = this.options.customerDocumentKeys;
      const request = await checkoutRequestOf(services.checkout, input, orderId, keys, method);
      const { amount, currency_code, data, options } = request;
      const update = { amount, currency_code, data: { invoiceRecordId, ...data } };
      return this.answer(input, await provider.updatePayment(update, options));
    });
  }

  /** See `webhookAction`: authenticated, stored in the inbox, applied, then answered for Medusa's session. */
  async getWebhookActionAndData(
    payload: Parameters<typeof webhookAction>[1],
  ): Promise<MedusaWebhookActionResult> {
    return webhookAction(await invoicePaymentsRuntime(this.options), payload);
  }

  // The service keeps no customers' accounts or saved cards (cards are tokenized per payment): no-ops, and `{}`
  // tells Medusa no account holder was created.
  createAccountHolder = nothing;
  retrieveAccountHolder = nothing;
  updateAccountHolder = nothing;
  deleteAccountHolder = nothing;
  deletePaymentMethod = nothing;
  listPaymentMethods = async (): Promise<Output[]> => [];

  /** Refused: there is nothing to save a card in. */
  async savePaymentMethod(): Promise<never> {
    throw new medusa.MedusaError('not_allowed', 'invoice-payments does not save payment methods');
  }

  /** A session's answer: the invoice's id and status, the data Medusa keeps (the storefront's document scrubbed). */
  private answer(input: Input, out: Awaited<ReturnType<InvoicePaymentProvider['initiatePayment']>>): Output {
    return {
      id: out.id,
      data: dataOf(out.data, input.data, this.options.customerDocumentKeys),
      status: out.status,
    };
  }

  /** One of the provider's operations on the session's record, answered with the data Medusa keeps. */
  private forward(
    operation: 'capturePayment' | 'cancelPayment' | 'deletePayment' | 'retrievePayment',
    input: Input,
  ): Promise<Output> {
    return this.run(async (provider) => ({
      data: dataOf((await provider[operation](sessionOf(input))).data),
    }));
  }

  private async run<T>(
    fn: (provider: InvoicePaymentProvider, services: MedusaRuntimeServices) => Promise<T>,
  ): Promise<T> {
    try {
      const services = await runtimeServices(this.options);
      return await fn(services.provider, services);
    } catch (err) {
      throw toMedusaError(err, medusa.MedusaError);
    }
  }
}

/**
 * The session data Medusa keeps (and its store API shows): the module's, with Medusa's session id (the record's order
 * key). Medusa merges the input into it, so a CPF/CNPJ the storefront sent (any of `documentKeys`) and the plugin's
 * copy of the cart (`cart`: the invoice has what it needed of it) are overwritten with `null`.
 */
function dataOf(
  data: InvoicePaymentSessionData,
  input?: Record<string, unknown> | null,
  documentKeys: readonly string[] = [],
): InvoicePaymentSessionData & { session_id: string } {
  const scrubbed: Record<string, null> = {};
  for (const key of new Set([...DEFAULT_DOCUMENT_KEYS, ...documentKeys, 'cart']))
    if (input && Object.prototype.hasOwnProperty.call(input, key)) scrubbed[key] = null;
  return { ...data, ...scrubbed, session_id: data.orderId };
}

/** The module's record of a session or payment (Medusa hands back the data the provider returned). */
function sessionOf(input: Input): { data: { invoiceRecordId: string } } {
  return { data: { invoiceRecordId: input?.data?.invoiceRecordId as string } };
}
