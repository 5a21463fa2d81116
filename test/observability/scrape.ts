/** One sample of a Prometheus text scrape: the series' name, its labels, its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text scrape (comments and blank lines left out). */
export function seriesOf(scrape: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of scrape.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** A series' value in a Prometheus scrape (the sum over the series matching every label given). */
export function value(scrape: string, name: string, labels: Record<string, string> = {}): number {
  return seriesOf(scrape)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** OpenTelemetry attributes as the Prometheus exporter labels them (`invoice_payments.source` → `…_source`). */
export function prometheusLabels(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(attributes).map(([k, v]) => [k.replace(/[^a-zA-Z0-9_]/g, '_'), v]),
  );
}

/** A counter as docs/observability.md's "Series" table lists it. */
export interface DocumentedCounter {
  /** The instrument's name (`invoice_payments.alerts`). */
  name: string;
  /** Its Prometheus series (`invoice_payments_alerts_total`). */
  prometheus: string;
  /** Each attribute the row names, with the values it names for it (a list ending `...` names some of them). */
  attributes: Record<string, string[]>;
}

/**
 * The counters of the docs' "Series" table: the rows whose first cell says `(counter, …)`. In the attributes cell,
 * each part (up to the next `; ` and dotted name) names an attribute (its first code span) and then its values (the code spans after).
 */
export function documentedCounters(markdown: string): DocumentedCounter[] {
  const section = /^### Series\n([\s\S]*?)^#/m.exec(markdown)?.[1] ?? '';
  const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && /\(counter, /.test(line))
    .map((line) => {
      const [metric, attributes, prometheus] = line.split('|').slice(1, 4);
      const named: Record<string, string[]> = {};
      // A part starts at an attribute's dotted name: a `;` inside a value's explanation does not split.
      for (const part of attributes.split(/;\s*(?=`[a-z_]+\.[a-z_.]+`)/)) {
        const [attribute, ...values] = spans(part);
        if (attribute) named[attribute] = values;
      }
      return { name: spans(metric)[0], prometheus: spans(prometheus)[0], attributes: named };
    });
}
