/**
 * The admin page's browser tests (`npm run test:browser`): Debian's Chromium driven by playwright-core against the
 * demo store on SQLite. Kept out of `npm test` (they need Chromium and take longer); `.ci/run` runs both.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.browser.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  testTimeout: 120_000,
  // One browser at a time: the machine has few cores.
  maxWorkers: 1,
};
