/**
 * `node -r ./bench/transpile.js`: loads `.ts` files transpiled one by one with the project's compiler options, as
 * `ts-node --transpile-only` does, but without ts-node itself. ts-node loads Node's `repl`, which turns domains on
 * for every EventEmitter of the process (`EventEmitter.usingDomains`): a cost on each event that a store running
 * the compiled package never pays. The bench's host process measures the module as it runs in production.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const config = ts.readConfigFile(path.join(__dirname, '..', 'tsconfig.json'), ts.sys.readFile).config;
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, path.join(__dirname, '..'));
const compilerOptions = { ...options, sourceMap: false, inlineSourceMap: false, declaration: false };

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
