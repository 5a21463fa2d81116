import { resolveWebhooksOptions } from './constants';
import { MAX_TRACKED_SOURCES, ValidationBudget } from './validation-budget';
import { WebhookTokenService } from './webhook-token.service';
import type { WebhookTokenValidator } from './types';

const line = (merchant: string, service: string) => Buffer.from(`${merchant}:${service}`).toString('base64');

class CountingValidator implements WebhookTokenValidator {
  calls = 0;
  constructor(private readonly valid: Set<string>) {}
  async validateWebhookToken(token: string): Promise<boolean> {
    this.calls++;
    return this.valid.has(token);
  }
}

describe('ValidationBudget', () => {
  it('gives each source its share and all of them the global one, per window', () => {
    let t = 0;
    const budget = new ValidationBudget(2, 3, 1000, () => t);
    expect(budget.spend('a')).toBeNull();
    expect(budget.spend('a')).toBeNull();
    expect(budget.spend('a')).toMatchObject({ scope: 'source', retryAfterMs: 1000 });
    expect(budget.spend('b')).toBeNull();
    expect(budget.spend('c')).toMatchObject({ scope: 'global' });
    t = 1000;
    expect(budget.spend('a')).toBeNull();
  });

  it('tracks a bounded number of sources', () => {
    let t = 0;
    const budget = new ValidationBudget(1, 1_000_000, 1000, () => t);
    for (let i = 0; i < MAX_TRACKED_SOURCES + 50; i++) budget.spend(`10.0.${i >> 8}.${i & 255}`);
    expect(budget.trackedSources).toBe(MAX_TRACKED_SOURCES);
    t = 5000; // windows over: room again
    budget.spend('new');
    expect(budget.trackedSources).toBe(1);
  });
});

describe('WebhookTokenService: the budget cannot be starved', () => {
  const options = resolveWebhooksOptions({
    tokenCacheTtlMs: 0, // every delivery validates again
    newTokenValidationsPerWindow: 30,
    newTokenValidationsPerSource: 5,
  });
  const from = (address: string, lines: string) => ({
    headers: {},
    headersDistinct: { webhook: lines.split(', ') },
    socket: { remoteAddress: address },
  });

  it("one source's flood of forged tokens does not block the service's confirmed token, nor another source", async () => {
    const validator = new CountingValidator(new Set(['real']));
    const tokens = new WebhookTokenService(options, validator);
    const real = () => tokens.authenticate(from('198.51.100.1', `wh, ${line('', 'real')}`) as never);
    expect((await real()).ok).toBe(true);
    const flood = [];
    for (let i = 0; i < 200; i++)
      flood.push(await tokens.authenticate(from('203.0.113.9', `wh, ${line('', `f${i}`)}`) as never));
    expect(flood.filter((r) => !r.ok && r.status === 503)).toHaveLength(195);
    expect(flood.find((r) => !r.ok && r.status === 503)).toMatchObject({
      retryAfterSeconds: expect.any(Number),
    });
    expect(validator.calls).toBe(1 + 5);
    // The confirmed token is validated again without the budget; a new token from elsewhere still gets its share.
    expect((await real()).ok).toBe(true);
    expect(await tokens.authenticate(from('192.0.2.7', `wh, ${line('', 'other')}`) as never)).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('the configured merchant token spends no budget, even from a flooding source', async () => {
    const validator = new CountingValidator(new Set(['new-real']));
    const tokens = new WebhookTokenService({ ...options, merchantToken: 'm-secret' }, validator);
    for (let i = 0; i < 10; i++)
      await tokens.authenticate(from('203.0.113.9', `wh, ${line('', `f${i}`)}`) as never);
    expect(
      await tokens.authenticate(from('203.0.113.9', `wh, ${line('m-secret', 'new-real')}`) as never),
    ).toEqual({
      ok: true,
      webhookId: 'wh',
    });
  });
});
