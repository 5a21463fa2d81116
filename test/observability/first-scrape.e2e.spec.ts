import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { INSTRUMENTS, KNOWN_ATTRIBUTES } from '../../src/core/otel';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { openCheckoutDatabase } from '../checkout/support';
import { describeEachDatabase, type TestDatabase } from '../support/databases';
import { type RootApp, startRootApp } from '../support/root-app';
import { registerSdk } from './otel-sdk';
import { documentedCounters, prometheusLabels, seriesOf } from './scrape';

/*
 * Every counter exists at 0 for each of its attribute sets from the process's first scrape (docs/observability.md,
 * "Series"): Prometheus' `increase()` sees an event only as a rise between two samples, so a series born at 1 hides
 * a process's first alert. The counters are those the docs' table lists; their attribute sets those the code starts
 * at 0 (`KNOWN_ATTRIBUTES`) and every value the docs name.
 */

const TOKEN = `tok-${randomUUID()}`;
const DOC = readFileSync(resolve(__dirname, '../../docs/observability.md'), 'utf8');

/** The code's counters: `INSTRUMENTS`' keys and names, histograms (unit `s`) left out. */
const CODE_COUNTERS = Object.entries(INSTRUMENTS)
  .filter(([, [, unit]]) => unit !== 's')
  .map(([key, [name]]) => ({ key, name: name as string }));

describeEachDatabase('the first scrape: every counter at 0', (kind) => {
  let sdk: ReturnType<typeof registerSdk>;
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: RootApp;
  let exporter: Server;

  beforeAll(async () => {
    sdk = registerSdk();
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }] });
    host = await startRootApp(db, sandbox, {
      gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox', retry: { maxAttempts: 1 } },
      reconciliation: { intervalMs: 0 },
    });
    exporter = createServer((req, res) => sdk.prometheus.getMetricsRequestHandler(req, res));
    await new Promise<void>((done) => exporter.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    if (exporter) await new Promise((done) => exporter.close(done));
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
    await sdk?.shutdown();
  });

  it('the documented counters are the code’s, and each documented and known series reads 0 before any event', async () => {
    const documented = documentedCounters(DOC);
    // The docs' table and the code list the same counters: a counter missing from either is a finding.
    expect(documented.map((c) => c.name).sort()).toEqual(CODE_COUNTERS.map((c) => c.name).sort());
    expect(documented.length).toBeGreaterThanOrEqual(7);

    const answer = await fetch(`http://127.0.0.1:${(exporter.address() as AddressInfo).port}/metrics`);
    expect(answer.status).toBe(200);
    const series = seriesOf(await answer.text());
    const matching = (name: string, labels: Record<string, string>) =>
      series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    const missing: string[] = [];
    for (const counter of documented) {
      const { key } = CODE_COUNTERS.find((c) => c.name === counter.name)!;
      // Each attribute set the code knows, exactly (no label more or less), at 0.
      const known = KNOWN_ATTRIBUTES[key] ?? [];
      if (known.length === 0) missing.push(`${counter.prometheus}: no known attribute set`);
      // Each attribute the code counts under is one the docs' row names.
      for (const attribute of new Set(known.flatMap((a) => Object.keys(a)))) {
        if (!counter.attributes[attribute]) missing.push(`${counter.prometheus}: ${attribute} undocumented`);
      }
      for (const attributes of known) {
        const labels = prometheusLabels(attributes);
        // The exporter adds the meter's scope (`otel_scope_name`): a label of its own, not an attribute.
        const exact = matching(counter.prometheus, labels).filter(
          (s) =>
            Object.keys(s.labels).filter((k) => !k.startsWith('otel_scope_')).length ===
            Object.keys(labels).length,
        );
        if (exact.length !== 1 || exact[0].value !== 0) {
          missing.push(`${counter.prometheus}${JSON.stringify(labels)}: ${JSON.stringify(exact)}`);
        }
      }
      // Each value the docs name for an attribute, in some series at 0.
      for (const [attribute, values] of Object.entries(counter.attributes)) {
        for (const v of new Set(values)) {
          const found = matching(counter.prometheus, prometheusLabels({ [attribute]: v }));
          if (found.length === 0 || found.some((s) => s.value !== 0)) {
            missing.push(`${counter.prometheus}{${attribute}="${v}"}: ${JSON.stringify(found)}`);
          }
        }
      }
      // Nothing else of the counter's: every series it has now is one the code starts, at 0.
      const all = series.filter((s) => s.name === counter.prometheus);
      if (all.length !== known.length)
        missing.push(`${counter.prometheus}: ${all.length} series, not ${known.length}`);
    }
    expect(missing).toEqual([]);
  });
});
