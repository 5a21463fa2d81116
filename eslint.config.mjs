// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'hosts/*/dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      '**/.medusa/**',
      'eslint.config.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['*.js', '*.cjs', 'hosts/*/*.js'],
    languageOptions: { globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The Medusa plugin's CommonJS files: Medusa requires them.
    files: ['medusa-plugin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { exports: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The admin page's and the demo shop page's scripts: ES modules run by the browser, no Node globals.
    files: ['src/admin-ui/assets/**/*.js', 'examples/demo-store/shop/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'sessionStorage',
          'localStorage',
          'fetch',
          'URL',
          'Node',
          'HTMLElement',
          'CSS',
          'console',
          'FormData',
          'Intl',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // The OpenTelemetry SDK set-up of docs/observability.md, preloaded by node before the app (CommonJS).
    files: ['scripts/consumer-app/signals/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['scripts/**/*.js', 'bench/**/*.js'],
    languageOptions: {
      globals: { require: 'readonly', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**', '**/*.spec.ts', 'bench/**', 'examples/**', 'scripts/**', 'src/sandbox/main.ts'],
    rules: { 'no-console': 'off' },
  },
);
