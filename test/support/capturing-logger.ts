import { LoggerService } from '@nestjs/common';

/** Every line any part of the flow wrote: Nest's logger at every level, the console, stdout/stderr, the sandbox. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private push(level: string, args: unknown[]) {
    this.lines.push(
      `${level} ${args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : render(a))).join(' ')}`,
    );
  }
  log = (...args: unknown[]) => this.push('log', args);
  error = (...args: unknown[]) => this.push('error', args);
  warn = (...args: unknown[]) => this.push('warn', args);
  debug = (...args: unknown[]) => this.push('debug', args);
  verbose = (...args: unknown[]) => this.push('verbose', args);
  fatal = (...args: unknown[]) => this.push('fatal', args);
}

export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
