import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

/** The fenced code blocks of a Markdown text, each as written between its fences. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** From `text`, the class declared with `@Controller('health')`, decorator to closing brace. */
function healthController(text: string): string {
  const match = /@Controller\('health'\)\nexport class HealthController \{[\s\S]*?\n\}\n/.exec(text);
  if (!match) throw new Error('no HealthController');
  return match[0];
}

describe('docs/observability.md shows what is run and tested', () => {
  const doc = read('docs/observability.md');
  const blocks = codeBlocks(doc);

  it('the SDK set-up files the consumer test preloads, and the rules file the alert tests evaluate', () => {
    for (const file of [
      'scripts/consumer-app/signals/otel.cjs',
      'scripts/consumer-app/signals/otel.mjs',
      'docs/prometheus-rules.yml',
    ]) {
      expect([file, blocks.includes(read(file))]).toEqual([file, true]);
    }
  });

  it("the health controller of the consumer app's and the health tests'", () => {
    const documented = healthController(doc);
    expect(healthController(read('scripts/consumer-app/signals/signals.ts'))).toBe(documented);
    expect(healthController(read('test/observability/health-controller.ts'))).toBe(documented);
  });
});
