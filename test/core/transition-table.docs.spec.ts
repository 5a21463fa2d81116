import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transitionTableMarkdown } from './transition-table.markdown';

/** A markdown table line without its padding, so Prettier's column alignment does not matter. */
const normalize = (text: string) =>
  text
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^-+$/, '-'))
        .join('|'),
    )
    .join('\n');

describe('docs/webhooks.md', () => {
  it('shows the transition table exactly as src/domain/status-table.ts defines it', () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'webhooks.md'), 'utf8');
    expect(normalize(page)).toContain(normalize(transitionTableMarkdown()));
  });
});
