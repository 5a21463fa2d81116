// Checks the packed tarball's file list (one path a line, relative to the package root): what must be there, what
// must not, and that every relative link of its Markdown files points at a file the package contains.
// Usage: node scripts/check-package-files.js <file list> <tarball>
const { readFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const { posix } = require('node:path');

const [listPath, tarball] = process.argv.slice(2);
const files = new Set(readFileSync(listPath, 'utf8').split('\n').filter(Boolean));
const problems = [];

const required = [
  'package.json',
  'README.md',
  'LICENSE',
  'dist/src/index.js',
  'dist/src/index.d.ts',
  'dist/src/sandbox/index.js',
  'dist/src/sandbox/index.d.ts',
  'dist/src/sandbox/main.js',
  'dist/migrations/index.js',
  // The admin page's files, copied by the build.
  'dist/src/admin-ui/assets/index.html',
  'dist/src/admin-ui/assets/app.js',
  // The storefront component (esbuild bundle and declarations).
  'dist/storefront/index.js',
  'dist/storefront/index.d.ts',
];
for (const file of required) if (!files.has(file)) problems.push(`missing from the package: ${file}`);
for (const file of files) {
  if (/(^|\/)(test|examples|bench)\//.test(file) || /\.spec\.(js|d\.ts)$/.test(file) || /^src\//.test(file)) {
    problems.push(`should not be in the package: ${file}`);
  }
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const types = typeof target === 'object' ? target.types : null;
  if (subpath === '.' || !types) continue;
  const name = subpath.replace(/^\.\//, '');
  const mapped = pkg.typesVersions?.['*']?.[name];
  if (!mapped || !mapped.includes(types)) {
    problems.push(
      `exports "${subpath}" has no typesVersions entry "${name}": ["${types}"] (node10 resolution)`,
    );
  }
}

const markdown = [...files].filter((f) => f.endsWith('.md'));
for (const file of markdown) {
  const text = execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' });
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const path = posix.normalize(posix.join(posix.dirname(file), target.split('#')[0]));
    const isDir = [...files].some((f) => f.startsWith(`${path.replace(/\/$/, '')}/`));
    if (!files.has(path) && !isDir)
      problems.push(`${file} links to ${target}, which the package does not contain`);
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`  ${files.size} files; ${markdown.length} Markdown files, every relative link resolves`);
