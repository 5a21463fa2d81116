import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');
const readme = read('README.md');
const consumerSources = readdirSync(join(ROOT, 'scripts', 'consumer-app', 'src')).map((file) =>
  read('scripts', 'consumer-app', 'src', file),
);

describe('README as a quick start', () => {
  it('installs into a host in at most six numbered steps', () => {
    const steps = [...readme.matchAll(/^\*\*(\d+)\. /gm)].map((m) => Number(m[1]));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps each docs page under about 300 lines', () => {
    for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
      expect({ page, lines: read('docs', page).split('\n').length < 300 }).toEqual({ page, lines: true });
    }
  });

  it('shows everything the consumer test uses from the package (it uses only what the README shows)', () => {
    const imported = consumerSources.flatMap((source) =>
      [
        ...source.matchAll(/import (?:type )?\{([^}]+)\} from 'nestjs-invoice-payments(?:\/sandbox)?'/g),
      ].flatMap((m) => m[1].split(',').map((name) => name.trim())),
    );
    expect(imported.length).toBeGreaterThan(5);
    const calls = [
      'setGlobalPrefix',
      'initiatePayment',
      'controls.pay(',
      'controls.getInvoice(',
      'order.shipment_created',
    ];
    for (const used of [...imported, ...calls, '/admin/invoice-payments/settings', 'publicWebhookUrl']) {
      expect({ used, shown: readme.includes(used) }).toEqual({ used, shown: true });
      expect({ used, inConsumer: consumerSources.some((s) => s.includes(used)) }).toEqual({
        used,
        inConsumer: true,
      });
    }
  });

  it('points at nothing the package lacks: no spec file path, no repository-only script as the way to run things', () => {
    for (const text of [readme, read('docs', 'sandbox.md'), read('docs', 'configuration.md')]) {
      expect(text).not.toMatch(/shared\/spec/);
    }
    expect(readme).toMatch(/npx nestjs-invoice-payments-sandbox/);
  });
});

describe('package.json', () => {
  const pkg = JSON.parse(read('package.json')) as {
    exports: Record<string, { types?: string } | string>;
    typesVersions: Record<string, Record<string, string[]>>;
    bin: Record<string, string>;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };

  it('maps every subpath export for node10 resolution (module: commonjs) through typesVersions', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (subpath === '.' || typeof target === 'string' || !target.types) continue;
      expect(pkg.typesVersions['*'][subpath.replace(/^\.\//, '')]).toEqual([target.types]);
    }
  });

  it('has the sandbox bin, no production dependency on qrcode, and Nest peers CI proves', () => {
    expect(pkg.bin['nestjs-invoice-payments-sandbox']).toBe('dist/src/sandbox/main.js');
    expect(read('src', 'sandbox', 'main.ts').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(pkg.dependencies).not.toHaveProperty('qrcode');
    expect(pkg.peerDependencies['@nestjs/core']).toBe('^11.0.0');
    expect(pkg.peerDependencies.typeorm).toBe('^0.3.20');
    expect(read('LICENSE')).toMatch(/^MIT License/);
  });
});
