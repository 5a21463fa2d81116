import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import * as ts from 'typescript';

/**
 * The package's main entry is a reviewed list: a name is added to `public-surface.txt` on purpose (and to
 * CHANGELOG.md), never by an `export *` picking up an internal. Subpath entries (`/sandbox`, `/medusa`,
 * `/vendure`) are not counted here.
 */
const ROOT = path.join(__dirname, '..', '..');
const MAX_NAMES = 120;

function exportedNames(file: string): string[] {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noResolve: false,
    types: [],
  };
  const program = ts.createProgram([file], options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${file} is not a module`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => s.name)
    .sort();
}

describe('the public entry (src/index.ts)', () => {
  const names = exportedNames(path.join(ROOT, 'src', 'index.ts'));
  const reviewed = readFileSync(path.join(__dirname, 'public-surface.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .sort();

  it(`exports at most ${MAX_NAMES} names`, () => {
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(MAX_NAMES);
  });

  it('exports exactly the reviewed names (public-surface.txt)', () => {
    expect(names).toEqual(reviewed);
  });
});
