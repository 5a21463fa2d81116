import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * The floors config must be able to fail: a small house with one wrong import of each kind is cruised with the
 * project's own `.dependency-cruiser.cjs`, and each wrong import must be reported (a loosened rule is caught here).
 */
const ROOT = path.join(__dirname, '..', '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');

const FILES: Record<string, string> = {
  // Allowed: down a floor, and within a floor.
  'src/domain/codes.ts': "export const CODES = ['a'] as const;\n",
  'src/core/store.ts': "import { CODES } from '../domain/codes';\nexport const store = CODES;\n",
  // Up a floor: the ground reads a capability.
  'src/domain/money.ts': "import { mapping } from '../checkout/mapping';\nexport const money = mapping;\n",
  'src/checkout/mapping.ts': "import { store } from '../core/store';\nexport const mapping = store;\n",
  // A circle closed only by a type-only import.
  'src/core/left.ts': "import type { Right } from './right';\nexport interface Left { right?: Right }\n",
  'src/core/right.ts': "import type { Left } from './left';\nexport interface Right { left?: Left }\n",
  // One capability into another's internals.
  'src/refunds/refund.ts': "import { mapping } from '../checkout/mapping';\nexport const refund = mapping;\n",
  // The provider's allowed crossing, and one beyond what it allows.
  'src/checkout/invoice-payment.provider.ts':
    "import { refunds } from '../refunds/refund.service';\nimport { refund } from '../refunds/refund';\nexport const p = [refunds, refund];\n",
  'src/refunds/refund.service.ts': 'export const refunds = 1;\n',
  // The sandbox reads the module.
  'src/sandbox/server.ts': "import { store } from '../core/store';\nexport const server = store;\n",
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'commonjs', strict: true },
    include: ['src'],
  }),
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(): Violation[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'floors-'));
  try {
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const config = path.join(ROOT, '.dependency-cruiser.cjs');
    const run = spawnSync(DEPCRUISE, ['src', '--config', config, '--output-type', 'json'], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (!run.stdout) throw new Error(`depcruise printed nothing: ${run.stderr}`);
    return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the floors (npm run lint)', () => {
  let violations: Violation[];
  const found = (rule: string, from: string, to?: string) =>
    violations.some((v) => v.rule.name === rule && v.from === from && (to === undefined || v.to === to));

  beforeAll(() => {
    violations = cruise();
  }, 60_000);

  it('refuses an import that runs up a floor', () => {
    expect(found('up-from-ground', 'src/domain/money.ts', 'src/checkout/mapping.ts')).toBe(true);
  });

  it('refuses a circle closed by type-only imports', () => {
    expect(found('no-circular', 'src/core/left.ts')).toBe(true);
  });

  it("refuses a capability reading another's files, beyond a crossing the config names", () => {
    expect(found('capabilities-apart', 'src/refunds/refund.ts', 'src/checkout/mapping.ts')).toBe(true);
    const provider = 'src/checkout/invoice-payment.provider.ts';
    expect(found('capabilities-apart-but-allowed', provider, 'src/refunds/refund.ts')).toBe(true);
    expect(violations.some((v) => v.from === provider && v.to === 'src/refunds/refund.service.ts')).toBe(
      false,
    );
  });

  it('keeps the sandbox apart', () => {
    expect(found('sandbox-apart', 'src/sandbox/server.ts', 'src/core/store.ts')).toBe(true);
  });

  it('lets imports run down', () => {
    expect(violations.some((v) => v.from === 'src/core/store.ts')).toBe(false);
    expect(violations.some((v) => v.from === 'src/checkout/mapping.ts')).toBe(false);
  });
});
