import { Inject, Injectable } from '@nestjs/common';
import { WEBHOOKS_OPTIONS } from './constants';
import type { ResolvedWebhooksOptions } from './types';
import type { WebhookVerification, WebhookVerifier } from '../core/webhook-verifier.port';
import { GatewayClient } from '../gateway/gateway.client';
import { exceedsJsonDepth } from '../gateway/payload.reader';
import { readDelivery } from './webhook-payload';
import { WebhookTokenService } from './webhook-token.service';

/**
 * The webhooks capability's {@link WebhookVerifier}: the same token check and payload reader as the module's
 * webhook route, for deliveries that arrive some other way (Medusa's own route → `getWebhookActionAndData`).
 */
@Injectable()
export class WebhookDeliveryVerifier implements WebhookVerifier {
  constructor(
    private readonly tokens: WebhookTokenService,
    private readonly gateway: GatewayClient,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {}

  async verify(
    headers: Record<string, unknown> | null | undefined,
    body: unknown,
  ): Promise<WebhookVerification> {
    const auth = await this.tokens.authenticate(headers ?? {});
    if (!auth.ok) return { ok: false, reason: `not authenticated: ${auth.reason}` };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { ok: false, reason: 'the body is not a JSON object' };
    }
    if (exceedsJsonDepth(body)) return { ok: false, reason: 'the body is nested too deep' };
    const delivery = readDelivery(body as Record<string, unknown>, await this.gateway.wireProfile());
    if (!delivery.invoice)
      return { ok: false, reason: delivery.invoiceError ?? 'the delivery carries no invoice' };
    if (!this.options.confirmWithService) return { ok: true, invoice: delivery.invoice };
    // A valid token says who sent it, not that the body is true: the service says what the invoice is now.
    try {
      const confirmed = await this.gateway.findInvoiceById(delivery.invoice.id);
      if (!confirmed)
        return { ok: false, reason: `the service does not know invoice ${delivery.invoice.id}` };
      return { ok: true, invoice: confirmed };
    } catch (err) {
      return {
        ok: false,
        reason: `could not confirm with the service: ${err instanceof Error ? err.message : 'error'}`,
      };
    }
  }
}
