// The cheap runtime check of a platform host (Vendure, Medusa) after the package is added: the package's entry for
// that platform loads from the host's root, and the module, the platform and the host resolve one and the same copy
// of each shared package (no second Nest container, no second TypeORM). No server is started.
// Usage, from the host's root: node load-from-host.js <entry> <platform package>
//   e.g. node load-from-host.js nestjs-invoice-payments/vendure @vendure/core
const { existsSync } = require('node:fs');
const { dirname, join, relative, sep } = require('node:path');

const SHARED = ['typeorm', '@nestjs/core', '@nestjs/common', '@nestjs/typeorm'];
const [entry, platform] = process.argv.slice(2);
const host = process.cwd();

// Resolved from the host's root, and found in its node_modules: run from inside a checkout of the package, Node
// would resolve the package's own name to that checkout (self-reference) and prove nothing about the host.
const file = require.resolve(entry, { paths: [host] });
if (!file.startsWith(join(host, 'node_modules') + sep)) {
  console.log(`${entry} resolved outside the host's node_modules: ${file}`);
  process.exit(1);
}
const loaded = require(file);
console.log(`  ${entry} loaded from ${relative(host, file)}: ${Object.keys(loaded).length} exports`);

if (!existsSync(join(host, 'node_modules', platform))) {
  console.log(`${platform} is not in the host's node_modules`);
  process.exit(1);
}
const from = {
  host,
  'the module': dirname(require.resolve('nestjs-invoice-payments/package.json', { paths: [host] })),
  // Where npm put it (not every platform package exports its package.json).
  [platform]: join(host, 'node_modules', platform),
};
let problems = 0;
for (const name of SHARED) {
  const resolved = Object.entries(from).map(([who, dir]) => [who, require.resolve(name, { paths: [dir] })]);
  const distinct = new Set(resolved.map(([, file]) => file));
  if (distinct.size === 1) {
    console.log(`  ${name}: one copy for the host, the module and ${platform}`);
  } else {
    problems += 1;
    for (const [who, file] of resolved) console.log(`  ${name} from ${who}: ${file}`);
  }
}
if (problems > 0) {
  console.log('the module and its host resolve different copies of a shared package');
  process.exit(1);
}
