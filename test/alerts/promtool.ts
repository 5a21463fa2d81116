import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';

/** The rules file the docs ship, read as Prometheus reads it. */
export const RULES_FILE = resolve(__dirname, '../../docs/prometheus-rules.yml');

type Rule = { alert: string; labels?: Record<string, string>; annotations?: Record<string, string> };

/** Every alert rule of the file, by name. */
export function alertRules(): Map<string, Rule> {
  const file = load(readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ rules: Rule[] }> };
  return new Map(file.groups.flatMap((g) => g.rules).map((rule) => [rule.alert, rule]));
}

/** One scrape's samples: the series as written (`name{labels}`) and its value. */
export function samples(scrape: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of scrape.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

/**
 * promtool's input series from real scrapes: scrape `k` is the sample at minute `k`, the last one held until
 * `minutes`; a series missing from a scrape is missing (`_`) at its minute, as it is for Prometheus.
 */
export function inputSeries(scrapes: string[], minutes: number) {
  const taken = scrapes.map(samples);
  const names = new Set(taken.flatMap((s) => [...s.keys()]));
  return [...names].map((series) => {
    const values: string[] = [];
    for (let minute = 0; minute <= minutes; minute++) {
      const value = taken[Math.min(minute, taken.length - 1)].get(series);
      values.push(value === undefined ? '_' : String(value));
    }
    return { series, values: values.join(' ') };
  });
}

/** What should fire at `at` (minutes): by alert name, the labels each firing alert carries beyond the rule's. */
export type Expectation = { at: number; firing: Record<string, Array<Record<string, string>>> };

/**
 * Runs `promtool test rules` on the docs' rules with the scrapes as input: at each expectation's time, every rule
 * of the file is checked, those not named there to be quiet. Resolves with promtool's output; rejects with it when
 * a rule fires otherwise.
 */
export async function testRules(scrapes: string[], expectations: Expectation[]): Promise<string> {
  const rules = alertRules();
  const minutes = Math.max(...expectations.map((e) => e.at)) + 1;
  const alert_rule_test = expectations.flatMap(({ at, firing }) => {
    for (const name of Object.keys(firing)) if (!rules.has(name)) throw new Error(`no rule ${name}`);
    return [...rules.values()].map((rule) => ({
      eval_time: `${at}m`,
      alertname: rule.alert,
      exp_alerts: (firing[rule.alert] ?? []).map((labels) => ({
        exp_labels: { ...rule.labels, ...labels },
        exp_annotations: rule.annotations ?? {},
      })),
    }));
  });
  const test = {
    rule_files: [RULES_FILE],
    evaluation_interval: '1m',
    tests: [{ interval: '1m', input_series: inputSeries(scrapes, minutes), alert_rule_test }],
  };
  const dir = mkdtempSync(join(tmpdir(), 'alert-rules-'));
  try {
    // JSON is YAML: promtool reads it as its test file.
    const file = join(dir, 'test.yml');
    writeFileSync(file, JSON.stringify(test));
    const { stdout } = await promisify(execFile)('promtool', ['test', 'rules', file]).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`promtool test rules failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
