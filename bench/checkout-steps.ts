/**
 * Where a checkout's host CPU goes, step by step (run in the bench's host process). Each step is timed with
 * `process.cpuUsage()` from its call until its promise settles, over sequential checkouts with the status delivery
 * drained between them, so nothing else runs inside a step. The steps are wrapped for the measurement and
 * unwrapped after it. CPU, not wall time: a step that waits for PostgreSQL or the sandbox costs only what the host
 * spends on it.
 */
import type { INestApplication } from '@nestjs/common';
import { InvoicePaymentProvider } from '../src/index';
import { InvoiceCreationService } from '../src/checkout/invoice-creation.service';
import { InvoiceRecordStore } from '../src/core/invoice-record.store';
import { CreationOutcomes } from '../src/checkout/creation-outcomes.service';
import { StatusChangeDispatcher } from '../src/core/status-dispatcher.service';
import { GatewayClient } from '../src/gateway/gateway.client';
import * as validation from '../src/gateway/dto/validators';
import { checkout, makeOrder } from '../test/checkout/support';

/** Host CPU per checkout, ms: the whole call, its steps, and the status delivery that follows it. */
export type CheckoutSteps = Record<string, number>;

const STEPS = [
  'prepare (map the order)',
  'claim (INSERT)',
  'create request',
  '(its validation)',
  '(its HTTP exchange)',
  'record the answer (UPDATE)',
] as const;

const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

export async function checkoutSteps(app: INestApplication, n: number): Promise<CheckoutSteps> {
  const sums = new Map<string, number>();
  const add = (step: string, us: number) => sums.set(step, (sums.get(step) ?? 0) + us);
  const undo: Array<() => void> = [];
  const wrap = (target: object, name: string, step: string) => {
    const holder = target as Record<string, (...args: unknown[]) => unknown>;
    const original = holder[name];
    holder[name] = function (this: unknown, ...args: unknown[]) {
      const started = cpuNow();
      const result = original.apply(this, args);
      if (result instanceof Promise) return result.finally(() => add(step, cpuNow() - started));
      add(step, cpuNow() - started);
      return result;
    };
    undo.push(() => (holder[name] = original));
  };
  // The exchange is the HTTP request itself, as the client holds it.
  const client = app.get(GatewayClient) as unknown as object;
  const [prepare, claim, create, validate, exchange, record] = STEPS;
  wrap(InvoiceCreationService.prototype, 'prepare', prepare);
  wrap(InvoiceRecordStore.prototype, 'claim', claim);
  wrap(GatewayClient.prototype, 'createInvoice', create);
  wrap(validation, 'validateInput', validate);
  wrap(client, 'exchange', exchange);
  wrap(CreationOutcomes.prototype, 'recordCreated', record);

  const provider = app.get(InvoicePaymentProvider);
  const dispatcher = app.get(StatusChangeDispatcher);
  const warm = Math.ceil(n / 3);
  let whole = 0;
  let background = 0;
  try {
    for (let i = 0; i < warm + n; i++) {
      if (i === warm) sums.clear();
      const started = cpuNow();
      await provider.initiatePayment(checkout(makeOrder(), 'pix'));
      const answered = cpuNow();
      // The status change goes to the order port after the answer: let it start, then wait for it.
      await new Promise((r) => setTimeout(r, 2));
      await dispatcher.drain();
      if (i >= warm) {
        whole += answered - started;
        background += cpuNow() - answered;
      }
    }
  } finally {
    for (const restore of undo) restore();
  }
  const perCall = (us: number) => us / 1000 / n;
  const steps: CheckoutSteps = { 'initiatePayment, until answered': perCall(whole) };
  for (const step of STEPS) steps[step] = perCall(sums.get(step) ?? 0);
  steps['then the status delivery (port, close)'] = perCall(background);
  return steps;
}
