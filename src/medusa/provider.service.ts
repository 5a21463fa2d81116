import { INestApplicationContext, Logger } from '@nestjs/common';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import type { InitiatePaymentData } from '../checkout/types';
import type { PaymentMethod } from '../gateway/types';
import { medusaAmountToCents } from './amounts';
import { loadMedusaFramework } from './framework';
import { buildCheckoutData } from './order';
import { invoicePaymentsRuntime, medusaDataSourceOptions, servicesOf } from './runtime';
import { authorizationStatus, dataOf, medusaSessionData, sessionOf, toMedusaError } from './session';
import type {
  InvoicePaymentsMedusaOptions,
  MedusaAmountInput,
  MedusaInitiateInput,
  MedusaInitiateOutput,
  MedusaProviderInput,
  MedusaProviderOutput,
  MedusaStatusOutput,
  MedusaWebhookActionResult,
  MedusaWebhookPayload,
} from './types';
import { webhookAction } from './webhook-action';

const medusa = loadMedusaFramework();
const logger = new Logger('InvoicePayments:Medusa');

/**
 * The Medusa v2 payment provider (`pp_invoice-payments_<id>`): PIX, bank slip and card through the service, with
 * the whole module (creation exactly once, webhook inbox, status path, reconciliation, tracking) running as a Nest
 * application context inside Medusa on its own TypeORM connection. Amounts cross the boundary once: Medusa's major
 * units in, integer cents inside, major units out. See `docs/medusa.md`.
 */
export class InvoicePaymentsMedusaProvider extends medusa.AbstractPaymentProvider {
  static identifier = 'invoice-payments';

  /** Refuses options that cannot work when Medusa loads the provider, naming the option. */
  static validateOptions(options: Record<string, unknown>): void {
    const o = options as Partial<InvoicePaymentsMedusaOptions>;
    try {
      if (!o?.gateway || typeof o.gateway !== 'object')
        throw new Error('gateway is required (baseUrl, accessToken, mode)');
      medusaDataSourceOptions(o as InvoicePaymentsMedusaOptions);
    } catch (err) {
      throw new medusa.MedusaError('invalid_data', `invoice-payments options: ${(err as Error).message}`);
    }
  }

  private readonly options: InvoicePaymentsMedusaOptions;

  constructor(cradle: Record<string, unknown>, options: InvoicePaymentsMedusaOptions) {
    super(cradle, options);
    this.options = options;
  }

  /** Creates the session's invoice from Medusa's amount and customer (see `buildCheckoutData`), exactly once. */
  async initiatePayment(input: MedusaInitiateInput): Promise<MedusaInitiateOutput> {
    return this.run(async (provider, app) => {
      const sessionId = input?.data?.session_id;
      if (typeof sessionId !== 'string' || !sessionId) {
        throw new medusa.MedusaError('invalid_data', 'data.session_id (set by Medusa) is required');
      }
      const out = await provider.initiatePayment(await this.checkoutRequest(app, input, sessionId));
      const data = medusaSessionData(out.data, sessionId, input.data, this.options.customerDocumentKeys);
      return { id: out.id, data, status: out.status };
    });
  }

  /**
   * Paid → `captured` (Medusa creates the payment, captured); authorized card → `authorized`; not paid yet →
   * `pending_authorization`, after asking the service once in case a webhook is late; otherwise the status table's.
   */
  async authorizePayment(input: MedusaProviderInput): Promise<MedusaStatusOutput> {
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
      return { status: authorizationStatus(out.status), data: dataOf(out.data) };
    });
  }

  async getPaymentStatus(input: MedusaProviderInput): Promise<MedusaStatusOutput> {
    return this.run(async (provider) => {
      const out = await provider.getPaymentStatus(sessionOf(input));
      return { status: out.status, data: dataOf(out.data) };
    });
  }

  /** Confirms a paid invoice; the service has no capture operation (see `InvoicePaymentProvider.capturePayment`). */
  async capturePayment(input: MedusaProviderInput): Promise<MedusaProviderOutput> {
    return this.run(async (provider) => ({
      data: dataOf((await provider.capturePayment(sessionOf(input))).data),
    }));
  }

  /** Refunds Medusa's amount (major units, converted exactly to cents) of a paid invoice, once per Medusa refund. */
  async refundPayment(input: MedusaAmountInput): Promise<MedusaProviderOutput> {
    return this.run(async (provider) => {
      const amount = medusaAmountToCents(input.amount);
      // Medusa names each refund (`context.idempotency_key`, its refund's id): a retry never refunds twice.
      const idempotencyKey = input.context?.idempotency_key;
      const refund = { ...sessionOf(input), amount, requestedBy: 'medusa' };
      return {
        data: dataOf(
          (await provider.refundPayment(idempotencyKey ? { ...refund, idempotencyKey } : refund)).data,
        ),
      };
    });
  }

  async cancelPayment(input: MedusaProviderInput): Promise<MedusaProviderOutput> {
    return this.run(async (provider) => ({
      data: dataOf((await provider.cancelPayment(sessionOf(input))).data),
    }));
  }

  /** Medusa drops the session (another method chosen, cart changed): its invoice is canceled while still payable. */
  async deletePayment(input: MedusaProviderInput): Promise<MedusaProviderOutput> {
    return this.run(async (provider) => ({
      data: dataOf((await provider.deletePayment(sessionOf(input))).data),
    }));
  }

  async retrievePayment(input: MedusaProviderInput): Promise<MedusaProviderOutput> {
    return this.run(async (provider) => ({
      data: dataOf((await provider.retrievePayment(sessionOf(input))).data),
    }));
  }

  /** A new amount or method cancels the open invoice and creates another for the same session. */
  async updatePayment(input: MedusaInitiateInput): Promise<MedusaInitiateOutput> {
    return this.run(async (provider, app) => {
      const current = await provider.getPaymentStatus(sessionOf(input));
      const sessionId = current.data.orderId;
      const request = await this.checkoutRequest(app, input, sessionId, current.data.method);
      const { order, method, card, installments } = request.data;
      const out = await provider.updatePayment({
        ...request,
        data: { invoiceRecordId: current.data.invoiceRecordId, order, method, card, installments },
      });
      const data = medusaSessionData(out.data, sessionId, input.data, this.options.customerDocumentKeys);
      return { id: out.id, data, status: out.status };
    });
  }

  /** See `webhookAction`: authenticated, stored in the inbox, applied, then answered for Medusa's session. */
  async getWebhookActionAndData(payload: MedusaWebhookPayload): Promise<MedusaWebhookActionResult> {
    return webhookAction(await invoicePaymentsRuntime(this.options), payload);
  }

  // The service keeps no customers' accounts or saved cards (cards are tokenized per payment, `saved: 0`), so the
  // account-holder and saved-method operations are no-ops: `{}` tells Medusa no account holder was created.

  async createAccountHolder(): Promise<MedusaProviderOutput> {
    return {};
  }

  async retrieveAccountHolder(): Promise<MedusaProviderOutput> {
    return {};
  }

  async updateAccountHolder(): Promise<MedusaProviderOutput> {
    return {};
  }

  async deleteAccountHolder(): Promise<MedusaProviderOutput> {
    return {};
  }

  async listPaymentMethods(): Promise<Array<MedusaProviderOutput & { id: string }>> {
    return [];
  }

  /** Refused: there is nothing to save a card in. */
  async savePaymentMethod(): Promise<never> {
    throw new medusa.MedusaError('not_allowed', 'invoice-payments does not save payment methods');
  }

  async deletePaymentMethod(): Promise<MedusaProviderOutput> {
    return {};
  }

  /** The checkout's request for a session: Medusa's amount in cents and the order built on the server. */
  private async checkoutRequest(
    app: INestApplicationContext,
    input: MedusaInitiateInput,
    sessionId: string,
    method?: PaymentMethod,
  ): Promise<{ amount: number; currency_code: string; data: InitiatePaymentData }> {
    const amount = medusaAmountToCents(input.amount);
    const { methods } = await servicesOf(app).checkout.current();
    const data = buildCheckoutData({
      sessionId,
      amountCents: amount,
      currencyCode: input.currency_code,
      context: input.context,
      data: input.data,
      documentKeys: this.options.customerDocumentKeys,
      defaultMethod: method ?? methods[0],
    });
    return { amount, currency_code: input.currency_code, data };
  }

  private async run<T>(
    fn: (provider: InvoicePaymentProvider, app: INestApplicationContext) => Promise<T>,
  ): Promise<T> {
    try {
      const app = await invoicePaymentsRuntime(this.options);
      return await fn(servicesOf(app).provider, app);
    } catch (err) {
      throw toMedusaError(err, medusa.MedusaError);
    }
  }
}
