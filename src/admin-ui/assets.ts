import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ADMIN_UI_CONTENT_TYPES } from './constants';

/** One file of the admin page, read into memory. */
export interface AdminUiAsset {
  contentType: string;
  body: string;
}

/**
 * The folder of the page's files: `assets/` next to this module, in the source (ts-node, tests) and in the build
 * (`npm run build` copies it to `dist/src/admin-ui/assets`, which the package ships).
 */
export const ADMIN_UI_ASSET_DIR = join(__dirname, 'assets');

let cache: ReadonlyMap<string, AdminUiAsset> | null = null;

/**
 * Every servable file of the page, by name, read once. Only these names are ever served: a request names a key of
 * this map, never a path on disk.
 */
export function adminUiAssets(dir: string = ADMIN_UI_ASSET_DIR): ReadonlyMap<string, AdminUiAsset> {
  if (cache && dir === ADMIN_UI_ASSET_DIR) return cache;
  const files = new Map<string, AdminUiAsset>();
  for (const name of readdirSync(dir)) {
    const contentType = ADMIN_UI_CONTENT_TYPES[extname(name)];
    if (contentType) files.set(name, { contentType, body: readFileSync(join(dir, name), 'utf8') });
  }
  if (!files.has('index.html')) throw new Error(`admin page: no index.html in ${dir}`);
  if (dir === ADMIN_UI_ASSET_DIR) cache = files;
  return files;
}

/** The page, telling its script how this app authenticates admins (`key`: the admin key; `host`: the host's guard). */
export function adminPage(auth: 'key' | 'host'): string {
  const html = (adminUiAssets().get('index.html') as AdminUiAsset).body;
  return html.replace(
    'name="invoice-payments-auth" content="key"',
    `name="invoice-payments-auth" content="${auth}"`,
  );
}
