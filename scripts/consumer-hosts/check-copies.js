// Fails unless each package the module shares with its host appears exactly once in the host's tree: one copy of
// `typeorm`, `@nestjs/core`, `@nestjs/common` and `@nestjs/typeorm`, wherever npm put it. Two copies mean two Nest
// containers or two TypeORM metadata stores, and the module would not see the host's DataSource.
// Usage: node check-copies.js <package-lock.json>   (the tree npm resolved: a lock, or node_modules/.package-lock.json)
//        npm query '…' | node check-copies.js -     (the tree on disk, as `npm query` reads it)
const { readFileSync } = require('node:fs');

const SHARED = ['typeorm', '@nestjs/core', '@nestjs/common', '@nestjs/typeorm'];
const [source] = process.argv.slice(2);

/** Every place a package sits in the tree: its path from the host's root, `node_modules/...`. */
function locations() {
  if (source === '-') {
    return JSON.parse(readFileSync(0, 'utf8')).map((node) => ({ name: node.name, location: node.location }));
  }
  const lock = JSON.parse(readFileSync(source, 'utf8'));
  return Object.entries(lock.packages ?? {})
    .filter(([location, entry]) => location !== '' && !entry.link)
    .map(([location]) => ({
      name: location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length),
      location,
    }));
}

const found = locations();
let problems = 0;
for (const name of SHARED) {
  const copies = found.filter((node) => node.name === name).map((node) => node.location);
  console.log(
    `  ${name}: ${copies.length} ${copies.length === 1 ? 'copy' : 'copies'} (${copies.join(', ')})`,
  );
  if (copies.length !== 1) problems += 1;
}
if (problems > 0) {
  console.log('each of these must be in the tree exactly once: the module and its host must share one copy');
  process.exit(1);
}
