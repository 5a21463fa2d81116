import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ADMIN, RESULTS } from './medusa-app';

/** The widths the owner's screens are checked at: a laptop and a phone. */
export const WIDTHS = [1280, 390] as const;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Medusa's admin signed in, as an owner whose browser speaks `locale` and who chose `language` in Medusa's settings
 * (Medusa keeps it in the `lng` cookie; none: Medusa's default, English).
 */
export async function signedIn(
  browser: Browser,
  url: string,
  locale: string,
  language?: string,
): Promise<Page> {
  // Medusa's session cookie is Secure in production: the header a TLS terminator adds (Medusa trusts one proxy).
  const context: BrowserContext = await browser.newContext({
    locale,
    viewport: { width: WIDTHS[0], height: 900 },
    extraHTTPHeaders: { 'X-Forwarded-Proto': 'https' },
  });
  if (language) await context.addCookies([{ name: 'lng', value: language, url }]);
  const page = await context.newPage();
  await page.goto(`${url}/app/login`);
  await page.fill('input[name="email"]', ADMIN.email);
  await page.fill('input[name="password"]', ADMIN.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/app\/orders/, { timeout: 60_000 });
  return page;
}

/** The order page's widget at `width` px, once its first invoice shows; a screenshot of it in test-results/. */
export async function orderWidget(page: Page, url: string, orderId: string, width: number, shot: string) {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${url}/app/orders/${orderId}`);
  const widget = page.getByTestId('invoice-payments-widget');
  await widget.getByTestId('invoice-payments-invoice').first().waitFor({ timeout: 60_000 });
  await widget.screenshot({ path: join(RESULTS, `${shot}-${width}.png`) });
  return widget;
}

/** Settings → Invoice payments at `width` px, once its rows show; a screenshot of all of it. */
export async function settingsPage(page: Page, url: string, width: number, shot: string) {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${url}/app/settings/invoice-payments`);
  const settings = page.getByTestId('invoice-payments-settings');
  await settings.getByTestId('invoice-payments-setting-mode').waitFor({ timeout: 60_000 });
  // Medusa's admin scrolls inside its layout, not the page: a window as tall as the page shows all of it.
  const bottom = await settings.evaluate((el) => el.getBoundingClientRect().top + el.scrollHeight + 24);
  await page.setViewportSize({ width, height: Math.ceil(bottom) });
  await page.screenshot({ path: join(RESULTS, `${shot}-${width}.png`) });
  return settings;
}

/** The text as shown (`innerText`: what the owner reads, whitespace as laid out). */
export function shown(locator: Locator): Promise<string> {
  return locator.innerText();
}

/** The StatusBadge's colour, from the class Medusa's UI gives its dot (`[&_div]:bg-ui-tag-green-icon`). */
export async function badgeColor(badge: Locator): Promise<string | null> {
  const dot = await badge.locator('[role="presentation"]').getAttribute('class');
  return /bg-ui-tag-(\w+)-icon/.exec(dot ?? '')?.[1] ?? null;
}

/** How often `text` appears on the page outside `inside` (Medusa's own sections beside the widget). */
export async function timesOutside(page: Page, inside: Locator, text: string): Promise<number> {
  const count = (all: string) => all.split(text).length - 1;
  return count(await page.locator('body').innerText()) - count(await inside.innerText());
}
