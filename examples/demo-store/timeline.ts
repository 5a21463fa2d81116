/** Where the timeline goes: one call per line. */
export type LineWriter = (line: string) => void;

export interface TimelineOptions {
  /** Default: standard output. */
  write?: LineWriter;
  /** ANSI colours; default: when standard output is a terminal and `NO_COLOR` is unset. */
  color?: boolean;
  /** Time source for the elapsed-time column (tests). */
  now?: () => number;
}

const CODES = { dim: 2, bold: 1, green: 32, red: 31, cyan: 36, yellow: 33 } as const;
type Style = keyof typeof CODES;

/**
 * Prints the walkthrough as a readable timeline: sections, then one line per step with the time elapsed since the
 * start, and indented details under it. It only prints; what happened is the walkthrough's result.
 */
export class Timeline {
  private readonly write: LineWriter;
  private readonly color: boolean;
  private readonly now: () => number;
  private readonly started: number;

  constructor(options: TimelineOptions = {}) {
    this.write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.color = options.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
    this.now = options.now ?? (() => Date.now());
    this.started = this.now();
  }

  /** A section title: one order's story. */
  section(title: string): void {
    this.write('');
    this.write(this.paint('bold', `━━ ${title} ${'━'.repeat(Math.max(3, 76 - title.length))}`));
  }

  /** Something that happened, stamped with the elapsed time. */
  step(text: string): void {
    this.write(`${this.stamp()}  ${this.paint('cyan', '▸')} ${text}`);
  }

  /** A step that reached the expected outcome. */
  ok(text: string): void {
    this.write(`${this.stamp()}  ${this.paint('green', '✔')} ${text}`);
  }

  /** A step that did not. */
  fail(text: string): void {
    this.write(`${this.stamp()}  ${this.paint('red', '✖')} ${this.paint('red', text)}`);
  }

  /** A labelled value under the last step. */
  detail(label: string, value: string | number): void {
    this.write(`${' '.repeat(12)}${this.paint('dim', `${label}:`)} ${value}`);
  }

  /** Verbatim lines (a QR code, a URL list), indented under the last step. */
  block(text: string): void {
    for (const line of text.replace(/\n+$/, '').split('\n')) this.write(`${' '.repeat(12)}${line}`);
  }

  /** A plain line (headers, the list of URLs). */
  line(text = ''): void {
    this.write(text);
  }

  /** Text to highlight inside a line. */
  highlight(text: string): string {
    return this.paint('yellow', text);
  }

  private stamp(): string {
    const seconds = ((this.now() - this.started) / 1000).toFixed(2);
    return this.paint('dim', `+${seconds}s`.padStart(9));
  }

  private paint(style: Style, text: string): string {
    return this.color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
  }
}
