/**
 * `npm run bench [parts...]`: the benchmarks, figures only (no assertion). Parts: `webhook`, `checkout`, `feed`
 * (need PostgreSQL: `DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/test; a fresh database is created
 * and dropped), `client` (gateway client iteration memory), `storefront` (the shopper's component, gzipped) and
 * `health` (/health while the service hangs, about 35 s).
 * Default: all. `BENCH_LONG=1`: the feed is 50,000 deliveries (about 4 minutes at 200/s). `scale` (asked by name only, not in the default): a small and a big store
 * side by side (bench/scale.ts; seeds 1 M invoices once). See docs/development.md#benchmarks for the knobs.
 */
import { runClientBench } from './client';
import { runHealthBench } from './health';
import { runScaleBench } from './scale';
import { runStorefrontBench } from './storefront';
import { runServerBench } from './webhook';

const ALL = ['webhook', 'feed', 'checkout', 'client', 'storefront', 'health'] as const;
/** Parts run only when named. */
const NAMED = ['scale'] as const;

async function main(): Promise<void> {
  const asked = process.argv.slice(2).concat((process.env.BENCH_PARTS ?? '').split(',').filter(Boolean));
  const known: readonly string[] = [...ALL, ...NAMED];
  const unknown = asked.filter((p) => !known.includes(p));
  if (unknown.length > 0)
    throw new Error(`unknown bench part(s) ${unknown.join(', ')}; parts: ${known.join(', ')}`);
  const parts = new Set<string>(asked.length > 0 ? asked : ALL);
  const started = performance.now();
  console.log(`bench: ${[...parts].join(', ')} (node ${process.version}, ${new Date().toISOString()})`);
  if (parts.has('webhook') || parts.has('checkout') || parts.has('feed')) {
    await runServerBench({
      webhook: parts.has('webhook'),
      checkout: parts.has('checkout'),
      feed: parts.has('feed'),
    });
  }
  if (parts.has('client')) {
    console.log('\n== client: create invoices, then iterate them ==');
    await runClientBench();
  }
  if (parts.has('storefront')) {
    console.log('\n== storefront: <invoice-payment> as the browser downloads it ==');
    await runStorefrontBench();
  }
  if (parts.has('health')) await runHealthBench();
  if (parts.has('scale')) await runScaleBench();
  console.log(`\nbench done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
