/**
 * The package's Medusa provider inside Medusa's own Payment module (`moduleIntegrationTestRunner`, PostgreSQL).
 * The package under test is `nestjs-invoice-payments` linked from `../..` (build it first: `npm run build` there),
 * so it resolves NestJS and TypeORM from the root's node_modules: one copy of each. `modulePaths` lets the linked
 * package find Medusa here, as an installed package finds it beside itself in a store's node_modules.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePaths: ['<rootDir>/node_modules'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 120000,
};
