import { Injectable } from '@nestjs/common';
import type { WebhookVerification, WebhookVerifier } from '../core/webhook-verifier.port';
import { GatewayClient } from '../gateway/gateway.client';
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
    const delivery = readDelivery(body as Record<string, unknown>, await this.gateway.wireProfile());
    if (!delivery.invoice)
      return { ok: false, reason: delivery.invoiceError ?? 'the delivery carries no invoice' };
    return { ok: true, invoice: delivery.invoice };
  }
}
