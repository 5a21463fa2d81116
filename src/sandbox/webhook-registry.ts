import { randomBytes, randomUUID } from 'node:crypto';
import type { WireResendWebhookResponse, WireWebhookDelivery } from './wire.types';
import { CURRENT_API_VERSION } from './constants';
import { localDateTime } from './dates';
import { notFound } from './errors';
import type { JsonObject } from './http';
import type { Store } from './store';
import type { WebhookRegistration, WebhookRegistrationInput } from './types';
import { FieldCheck } from './validation';
import type { Deliveries } from './webhooks';

export const DEFAULT_WEBHOOK_ID = 'default';

/**
 * Registered webhooks and the two webhook operations of the interface: validate a service token (§4.7,
 * OPTIONS) and resend an event (§4.8, COPY). The `default` webhook has no URL and no merchant token: it signs
 * deliveries to `payment.webhook` URLs (A13).
 */
export class WebhookRegistry {
  constructor(
    private readonly store: Store,
    private readonly deliveries: Deliveries,
    private readonly now: () => Date,
    private readonly timeZone: string,
  ) {
    if (!store.webhooks.has(DEFAULT_WEBHOOK_ID)) {
      store.saveWebhook({ id: DEFAULT_WEBHOOK_ID, url: null, merchantToken: '', token: newToken() });
    }
  }

  /** Every webhook, the default one first. */
  list(): WebhookRegistration[] {
    const all = [...this.store.webhooks.values()];
    return [
      ...all.filter((w) => w.id === DEFAULT_WEBHOOK_ID),
      ...all.filter((w) => w.id !== DEFAULT_WEBHOOK_ID),
    ];
  }

  /** Registers a URL (a webhook "registered manually in the control panel", §6.5). */
  register(input: WebhookRegistrationInput | JsonObject): WebhookRegistration {
    const c = new FieldCheck();
    const body = input as JsonObject;
    const url = c.url(body, 'url', 'url', true);
    const merchant = c.string(body, 'merchant_token', 'merchant_token', { max: 200 });
    if (typeof merchant === 'string' && merchant.includes(':'))
      c.fail('merchant_token', 'must not contain ":"');
    c.done();
    const id = `wh_${String(this.store.next('webhook')).padStart(4, '0')}`;
    const hook: WebhookRegistration = {
      id,
      url: url as string,
      merchantToken: merchant ?? '',
      token: newToken(),
    };
    this.store.saveWebhook(hook);
    return hook;
  }

  /** §4.7: true when `token` is a service token this sandbox issued. */
  validate(body: JsonObject): { success: true } {
    const c = new FieldCheck();
    const token = c.string(body, 'token', 'token', { required: true, max: 512 });
    c.done();
    const known = [...this.store.webhooks.values()].some((w) => w.token === token);
    if (!known) throw notFound('the webhook token is not valid');
    return { success: true };
  }

  /** §4.8, A14: delivers the latest `events` delivery of webhook `webhook` to `url` (a synthetic one if none). */
  async resend(body: JsonObject): Promise<WireResendWebhookResponse> {
    const c = new FieldCheck();
    const url = c.url(body, 'url', 'url', true);
    const event = c.string(body, 'events', 'events', { required: true, max: 100 });
    const hookId = c.string(body, 'webhook', 'webhook', { required: true, max: 100 });
    c.done();
    const hook = this.store.webhooks.get(hookId as string);
    if (!hook) throw notFound(`no webhook ${hookId}`);
    const latest = this.deliveries.latest(event as string, hook.id);
    const delivery: WireWebhookDelivery = latest
      ? latest.body
      : {
          event: event as string,
          delivery_id: randomUUID(),
          webhook: hook.id,
          sent_at: localDateTime(this.now(), this.timeZone),
          test: true,
          invoice: null,
        };
    const outcome = await this.deliveries.sendNow(hook, url as string, delivery);
    let json: unknown = null;
    try {
      json = outcome.body ? JSON.parse(outcome.body) : null;
    } catch {
      json = null;
    }
    return {
      success: true,
      sent: {
        event: event as string,
        total: 1,
        responses: [
          {
            events: event as string,
            webhook: hook.id,
            response: {
              action: outcome.status === null ? 'failed' : 'sent',
              details: {
                raw_response: json === null,
                json_response: json,
                http: outcome.status ?? 0,
                headers: outcome.headers,
              },
            },
            update: localDateTime(this.now(), this.timeZone),
            version: CURRENT_API_VERSION,
          },
        ],
      },
    };
  }

  /** Webhooks survive `reset()` only as the default one. */
  static keepOnReset(w: WebhookRegistration): boolean {
    return w.id === DEFAULT_WEBHOOK_ID;
  }
}

function newToken(): string {
  return randomBytes(24).toString('hex');
}
