// Writes what Medusa loads from the plugin into .medusa/server/src (as `medusa plugin:build` lays it out): the server
// files as they are (they re-export the package's handlers) and the admin extensions compiled to an ES module. The
// admin is type-checked where Medusa's admin packages are installed (hosts/medusa), so here it is only emitted.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = path.join(root, '.medusa', 'server', 'src');
fs.rmSync(path.join(root, '.medusa'), { recursive: true, force: true });
fs.cpSync(path.join(__dirname, 'server'), out, { recursive: true });
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(__dirname, 'admin', 'tsconfig.json'), '--noCheck'], {
  stdio: 'inherit',
});
fs.writeFileSync(path.join(out, 'admin', 'package.json'), '{ "type": "module" }\n');
