/**
 * Content-Security-Policy of the admin page: its own scripts, styles and icon only, API calls to its own origin,
 * no inline code, no plugins, no framing, no form posting anywhere.
 */
export const ADMIN_UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer of the admin page (the page and its assets). */
export const ADMIN_UI_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': ADMIN_UI_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Content types of the page's files, by extension; files of other kinds in `assets/` are not served. */
export const ADMIN_UI_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};
