import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', '..', 'src', 'sandbox');

describe('sandbox: independence from the module', () => {
  it('imports nothing from src/ but the wire types, and those as types only', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(join(DIR, file), 'utf8');
      for (const m of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.\.\/[^']+)'/gms)) {
        if (!(m[2] && m[3] === '../gateway/wire.types')) offenders.push(`${file}: ${m[0].split('\n')[0]}`);
      }
      if (/require\(['"]\.\.\//.test(source)) offenders.push(`${file}: require of a parent module`);
    }
    expect(offenders).toEqual([]);
  });
});
