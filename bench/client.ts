/**
 * Gateway client bench (`npm run bench client`): creates N invoices in the sandbox through the client, then walks them all with
 * `iterateInvoices`, sampling the collected heap every 100 invoices, to show that iteration memory stays flat
 * whatever N (the sandbox runs in the same process; its store is part of the baseline).
 *
 *   npm run bench client                       # N = 5000
 *   BENCH_CLIENT_INVOICES=10000 npm run bench client
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { GatewayClient } from '../src/gateway/gateway.client';
import type { CreateInvoiceParams } from '../src/gateway/types';
import { startSandbox } from '../src/sandbox';

const N = Number(process.env.BENCH_CLIENT_INVOICES ?? 5000);
const TOKEN = 'bench-token';
// A collected heap is what the iteration retains; garbage would only measure the collector's mood.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function params(i: number): CreateInvoiceParams {
  return {
    client: { name: 'Bench Buyer', document: '52998224725', email: 'bench@example.com' },
    payment: {
      method: 'pix',
      physical: false,
      id: `bench-${i}`,
      referrer: `bench-${i}`,
      products: [{ id: 'p', title: 'Item', quantity: 1, discountCents: 0, unitAmountCents: 1000 + i }],
    },
  };
}

export async function runClientBench(): Promise<void> {
  const sandbox = await startSandbox({
    port: 0,
    tokens: [{ token: TOKEN, scopes: ['invoice.read', 'invoice.write'] }],
  });
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const client = new GatewayClient({
    baseUrl: sandbox.url,
    accessToken: TOKEN,
    mode: 'sandbox',
    logger: quiet,
  });
  try {
    let started = performance.now();
    const concurrency = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < N) await client.createInvoice(params(next++));
      }),
    );
    const createMs = performance.now() - started;
    console.log(
      `created ${N} invoices in ${(createMs / 1000).toFixed(1)} s (${Math.round(N / (createMs / 1000))}/s)`,
    );

    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    let count = 0;
    let sumCents = 0;
    started = performance.now();
    for await (const invoice of client.iterateInvoices()) {
      count++;
      sumCents += invoice.amounts.grossCents ?? 0;
      if (count % 100 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    const iterateMs = performance.now() - started;
    console.log(
      `iterated ${count} invoices in ${(iterateMs / 1000).toFixed(2)} s (${Math.round(count / (iterateMs / 1000))}/s)`,
    );
    console.log(
      `heap: baseline ${mb(baseline)}, retained peak during iteration ${mb(peak)} (+${mb(peak - baseline)})`,
    );
    console.log(`checksum: ${sumCents} cents`);
    if (count !== N) throw new Error(`expected ${N} invoices, iterated ${count}`);
  } finally {
    await sandbox.close();
  }
}
