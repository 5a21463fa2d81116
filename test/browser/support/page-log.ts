import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Where the tests write a screenshot of each page (gitignored); `SCREENSHOT_DIR` moves it. */
export const SCREENSHOT_DIR =
  process.env.SCREENSHOT_DIR || join(__dirname, '..', '..', '..', 'test-results', 'admin-page');

/** Saves a full-page screenshot as `<name>.png` in {@link SCREENSHOT_DIR}; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Every error a page reports: uncaught exceptions, `console.error`, CSP violations, and the browser's own
 * "Failed to load resource" lines. The tests name the HTTP errors they cause on purpose (a wrong key: 401, an
 * invalid setting: 400) with {@link PageLog.expectHttpError}; anything else is a failure.
 */
export class PageLog {
  readonly errors: string[] = [];
  private readonly expected: number[] = [];

  watch(page: Page): Page {
    page.on('pageerror', (error) => this.errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        this.errors.push(`console.${message.type()}: ${message.text()}`);
      }
    });
    return page;
  }

  /** The next "Failed to load resource ... status of `status`" line is one the test caused. */
  expectHttpError(status: number): void {
    this.expected.push(status);
  }

  /** The errors nobody expected; each expected HTTP error excuses one matching line. */
  unexpected(): string[] {
    const excused = [...this.expected];
    return this.errors.filter((line) => {
      const status = /Failed to load resource: the server responded with a status of (\d{3})/.exec(line);
      const at = status ? excused.indexOf(Number(status[1])) : -1;
      if (at < 0) return true;
      excused.splice(at, 1);
      return false;
    });
  }
}
