import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', '..', 'src', 'sandbox');

describe('sandbox: independence from the module', () => {
  it('imports nothing from src/ (its wire types are its own)', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(join(DIR, file), 'utf8');
      for (const m of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.\.\/[^']+)'/gms)) {
        offenders.push(`${file}: ${m[0].split('\n')[0]}`);
      }
      if (/require\(['"]\.\.\//.test(source)) offenders.push(`${file}: require of a parent module`);
    }
    expect(offenders).toEqual([]);
  });
});
