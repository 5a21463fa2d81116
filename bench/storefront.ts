import { build } from 'esbuild';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The budget for `<invoice-payment>`, gzipped; `npm run build` fails over it. */
const BUDGET_BYTES = 20 * 1024;

/**
 * The storefront component's weight as a shopper downloads it: bundled and minified as `npm run build` does
 * (scripts/build-storefront.js), then gzipped.
 */
export async function runStorefrontBench(): Promise<void> {
  const result = await build({
    entryPoints: [join(__dirname, '..', 'src', 'storefront', 'index.ts')],
    bundle: true,
    format: 'esm',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const gzip = gzipSync(code, { level: 9 }).length;
  const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log(`component: ${kB(code.length)} minified, ${kB(gzip)} gzipped (budget ${kB(BUDGET_BYTES)})`);
}
