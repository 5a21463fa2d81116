import { build } from 'esbuild';
import { join } from 'node:path';

let bundle: Promise<string> | undefined;

/**
 * The storefront component as the browser loads it: the package's `./storefront` entry bundled from source, once
 * per process. (A store that installed the package serves `nestjs-invoice-payments/dist/storefront/index.js`, or
 * imports `nestjs-invoice-payments/storefront` in its own bundle.)
 */
export function componentBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [join(__dirname, '..', '..', 'src', 'storefront', 'index.ts')],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0].text);
  return bundle;
}
