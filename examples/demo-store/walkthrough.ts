import * as qrcodeTerminal from 'qrcode-terminal';
import { billetStory, cardStory, pixStory } from './stories';
import { StoreClient } from './store-client';
import { Timeline } from './timeline';
import type { OrderView } from './views';

export interface WalkthroughOptions {
  /** The demo store's base URL. */
  storeUrl: string;
  /** The sandbox's base URL: its `/_sandbox` controls stand in for the customer and the card script. */
  sandboxUrl: string;
  /** Bearer key of the store's admin endpoints. */
  adminKey: string;
  timeline?: Timeline;
  /** Longest wait for an asynchronous outcome (a webhook, the tracking post). Default 20 000 ms. */
  waitMs?: number;
  /** Draws the PIX QR code for the terminal. Default: `qrcode-terminal`, small. */
  drawQr?: (payload: string) => string;
}

/** One step of the walkthrough and how it went. */
export interface StepResult {
  /** `story.step`, e.g. `pix.webhook`. */
  name: string;
  ok: boolean;
  error?: string;
}

export interface WalkthroughResult {
  ok: boolean;
  steps: StepResult[];
  /** Each story's order as last seen. */
  orders: { pix?: OrderView; card?: OrderView; billet?: OrderView };
  /** The tracking code the service holds for the PIX order's invoice. */
  trackingAtService?: string | null;
}

/**
 * Walks orders through their whole life over HTTP, as a storefront, a store admin and a paying customer would:
 * a PIX order paid and shipped, a card order paid and refunded, a bank-slip order canceled. A failed step ends its
 * story; the other stories still run.
 */
export async function runWalkthrough(options: WalkthroughOptions): Promise<WalkthroughResult> {
  const run = new Run(options);
  await run.story('pix', 'PIX order: physical items shipped to São Paulo', (s) => pixStory(run, s));
  await run.story('card', 'Card order: paid, then refunded', (s) => cardStory(run, s));
  await run.story('billet', 'Bank-slip order: issued, then canceled', (s) => billetStory(run, s));
  const failed = run.steps.filter((step) => !step.ok).map((step) => step.name);
  const ok = failed.length === 0;
  run.timeline.line();
  if (ok) run.timeline.ok(`Walkthrough complete: ${run.steps.length} steps passed.`);
  else run.timeline.fail(`Walkthrough failed: ${failed.join(', ')}`);
  return { ok, steps: run.steps, orders: run.orders, trackingAtService: run.trackingAtService };
}

type Story = 'pix' | 'card' | 'billet';
/** Runs one named step of a story; a failure is recorded, printed, and ends the story. */
export type Stepper = (name: string, fn: () => Promise<void>) => Promise<void>;

/** The walkthrough's state: its client, timeline and what the steps found. */
export class Run {
  readonly client: StoreClient;
  readonly timeline: Timeline;
  readonly waitMs: number;
  readonly drawQr: (payload: string) => string;
  readonly steps: StepResult[] = [];
  readonly orders: WalkthroughResult['orders'] = {};
  trackingAtService?: string | null;

  constructor(options: WalkthroughOptions) {
    this.client = new StoreClient(options.storeUrl, options.sandboxUrl, options.adminKey);
    this.timeline = options.timeline ?? new Timeline();
    this.waitMs = options.waitMs ?? 20_000;
    this.drawQr = options.drawQr ?? terminalQr;
  }

  async story(story: Story, title: string, body: (step: Stepper) => Promise<void>): Promise<void> {
    this.timeline.section(title);
    const step: Stepper = async (name, fn) => {
      try {
        await fn();
        this.steps.push({ name: `${story}.${name}`, ok: true });
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        this.steps.push({ name: `${story}.${name}`, ok: false, error });
        this.timeline.fail(`${story}.${name}: ${error}`);
        throw new StoryStopped();
      }
    };
    await body(step).catch((err: unknown) => {
      if (!(err instanceof StoryStopped)) throw err;
    });
  }

  /** Polls the order until `done` holds; throws naming what was awaited and what was last seen. */
  async waitForOrder(id: string, what: string, done: (o: OrderView) => boolean): Promise<OrderView> {
    let last: OrderView | undefined;
    await this.until(
      what,
      async () => {
        last = await this.client.getOrder(id);
        return done(last);
      },
      () => (last ? `payment ${last.payment_status}, order ${last.status}` : 'nothing yet'),
    );
    return last as OrderView;
  }

  /** Polls `check` every 100 ms until it answers true or {@link waitMs} passes. */
  async until(what: string, check: () => Promise<boolean>, seen: () => string = () => ''): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    while (!(await check())) {
      if (Date.now() > deadline)
        throw new Error(`gave up waiting for ${what} after ${this.waitMs} ms (${seen()})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

class StoryStopped extends Error {}

/** The PIX QR code as terminal text (half-height blocks, so it fits a normal terminal). */
function terminalQr(payload: string): string {
  let drawn = '';
  qrcodeTerminal.generate(payload, { small: true }, (text) => {
    drawn = text;
  });
  return drawn;
}
