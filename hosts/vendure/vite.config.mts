import { vendureDashboardPlugin } from '@vendure/dashboard/vite';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineConfig } from 'vite';

// Vendure's dashboard as a store builds it (`vite build`), with the plugins of src/vendure-config.ts.
export default defineConfig({
  base: '/dashboard/',
  build: { outDir: join(__dirname, 'dist/dashboard') },
  plugins: [
    vendureDashboardPlugin({
      vendureConfigPath: pathToFileURL('./src/vendure-config.ts'),
      api: { host: 'auto', port: 'auto' },
    }),
  ],
});
