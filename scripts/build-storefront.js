// Builds the storefront component (`nestjs-invoice-payments/storefront`) into dist/storefront: one minified ES
// module bundled by esbuild, its declarations by tsc, and a package.json that marks the folder as ES modules. Fails
// when the bundle is over its budget, gzipped: the component loads on every checkout page.
// Usage: node scripts/build-storefront.js [--check-only]   (--check-only: only the size check of the built file)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

/** The budget of the issue: 20 kB gzipped. */
const MAX_GZIP_BYTES = 20 * 1024;
const root = path.join(__dirname, '..');
const out = path.join(root, 'dist', 'storefront');
const bundle = path.join(out, 'index.js');

/** The bundle's size, raw and gzipped (level 9, as a CDN or a store's server would send it). */
function sizeOf(file) {
  const code = fs.readFileSync(file);
  return { raw: code.length, gzip: zlib.gzipSync(code, { level: 9 }).length };
}

function build() {
  fs.rmSync(out, { recursive: true, force: true });
  require('esbuild').buildSync({
    entryPoints: [path.join(root, 'src', 'storefront', 'index.ts')],
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    outfile: bundle,
    logLevel: 'warning',
  });
  const tsc = require.resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'src', 'storefront', 'tsconfig.json')], {
    stdio: 'inherit',
  });
  fs.writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n');
}

if (!process.argv.includes('--check-only')) build();
const { raw, gzip } = sizeOf(bundle);
console.log(`storefront component: ${(raw / 1024).toFixed(1)} kB, ${(gzip / 1024).toFixed(1)} kB gzipped`);
if (gzip > MAX_GZIP_BYTES) {
  console.error(`dist/storefront/index.js is ${gzip} bytes gzipped, over the ${MAX_GZIP_BYTES}-byte budget`);
  process.exit(1);
}
