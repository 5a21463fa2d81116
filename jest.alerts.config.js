/**
 * The alert rules of docs/prometheus-rules.yml against real scrapes of the module (`npm run test:alerts`): needs
 * `promtool` (Debian's `prometheus` package), so kept out of `npm test`; `.ci/run` installs it and runs both.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/alerts'],
  testMatch: ['**/*.alerts.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 120_000,
  maxWorkers: 1,
};
