/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    // Type checking is `npm run typecheck`'s job; tests only transpile, which keeps them fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // cockatiel 4 ships ES modules only; Node >= 20.19 requires them natively, Jest does not: compile it to CommonJS.
    '^.+/node_modules/cockatiel/.+\\.js$': [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true },
        diagnostics: false,
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!cockatiel/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // PostgreSQL-backed suites share one server; two workers keep them from starving each other on 2 cores.
  maxWorkers: 2,
};
