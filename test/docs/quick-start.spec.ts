import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

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
      'DEFAULT_SHIPMENT_EVENT',
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

describe('README snippets', () => {
  /** The README's TypeScript blocks that name their file on their first line (`// app.module.ts`). */
  const files = [...readme.matchAll(/```ts\n\/\/ ([\w.-]+\.ts)\n([\s\S]*?)```/g)].map((m) => ({
    name: m[1],
    source: m[2],
  }));

  it('compile as written (strict), with only the host its own order entity', () => {
    expect(files.map((f) => f.name)).toEqual([
      'app.module.ts',
      'order-payment.adapter.ts',
      'checkout.service.ts',
      'shipping.service.ts',
      'payments.e2e-spec.ts',
    ]);
    // Inside the repository so that `@nestjs/*` and `typeorm` resolve from its node_modules.
    mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'readme-snippets-'));
    try {
      for (const file of files) writeFileSync(join(dir, file.name), file.source);
      writeFileSync(
        join(dir, 'order.entity.ts'),
        "import { Column, Entity, PrimaryColumn } from 'typeorm';\n" +
          '@Entity() export class Order { @PrimaryColumn() id!: string; @Column() paymentStatus!: string; }\n',
      );
      const program = ts.createProgram(
        [...files.map((f) => join(dir, f.name)), join(dir, 'order.entity.ts')],
        {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          types: ['node'],
          paths: {
            'nestjs-invoice-payments': [join(ROOT, 'src', 'index.ts')],
            'nestjs-invoice-payments/sandbox': [join(ROOT, 'src', 'sandbox', 'index.ts')],
          },
        },
      );
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName.startsWith(dir))
        .map(
          (d) =>
            `${d.file!.fileName.slice(dir.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('install commands are the ones the consumer test runs on its two stacks', () => {
    const commands = [...readme.matchAll(/^npm install nestjs-invoice-payments (.+)$/gm)].map((m) => m[1]);
    expect(commands).toHaveLength(2);
    const script = read('scripts', 'consumer-test.sh');
    for (const packages of commands) expect(script).toContain(`readme="${packages}"`);
  });

  it('the Vendure and Medusa install commands are the ones the consumer test adds to those hosts', () => {
    // Shell lines continued with a backslash, joined into one command each.
    const commands = (page: string) =>
      [
        ...read('docs', page)
          .replace(/\\\n\s*/g, '')
          .matchAll(/^npm install nestjs-invoice-payments\b(.*)$/gm),
      ].map((m) => m[1].trim());
    const script = read('scripts', 'consumer-test.sh');
    // The Vendure host gets the package's name alone: the script's added_packages has no list for it.
    expect(commands('vendure.md')).toEqual(['']);
    expect(script).not.toMatch(/^\s*vendure\) \w+="/m);
    const medusa = commands('medusa.md');
    expect(medusa).toHaveLength(1);
    expect(script).toContain(`medusa="${medusa[0]}"`);
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
    // Both lines, as far as the consumer test's two stacks (latest, lts) prove them.
    expect(pkg.peerDependencies['@nestjs/core']).toBe('^11.0.0 || ^12.0.0');
    expect(pkg.peerDependencies['@nestjs/typeorm']).toBe('^11.0.0 || ^12.0.0');
    expect(pkg.peerDependencies['@nestjs/axios']).toBe('^4.0.0 || ^12.0.0');
    expect(pkg.peerDependencies['@nestjs/event-emitter']).toBe('^3.0.0 || ^12.0.0');
    expect(pkg.peerDependencies.typeorm).toBe('^0.3.20 || ^1.0.0');
    // Optional integrations are not declared: npm resolves even an optional peer, and terminus 12 beside Vendure's
    // Nest 11 made the install fail (ERESOLVE). The module loads them only where the host installed them.
    expect(Object.keys(pkg.peerDependencies)).not.toContain('@nestjs/terminus');
    expect(Object.keys(pkg.peerDependencies)).not.toContain('@opentelemetry/api');
    expect(read('LICENSE')).toMatch(/^MIT License/);
  });
});
