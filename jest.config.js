/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.spec.ts'],
  // Needs `node --experimental-vm-modules`: run by `npm run test:vendure` (jest.vendure.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/vendure/'],
  transform: {
    // Type checking is `npm run typecheck`'s job; tests only transpile, which keeps them fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // PostgreSQL-backed suites share one server; two workers keep them from starving each other on 2 cores.
  maxWorkers: 2,
};
