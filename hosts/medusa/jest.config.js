/**
 * The package installed from its packed tarball (`pretest`: `npm pack` at the root, then `npm install --no-save`),
 * as a store installs it, beside Medusa and the package's peers. Build the package first (`npm run build` there).
 * `test/*.spec.ts`: Medusa's Payment module with the provider (`moduleIntegrationTestRunner`); `test/app/`: this
 * folder as a Medusa app (`medusa build`, `medusa start`) with the admin in Chromium.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.medusa/', '<rootDir>/.pack/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 120000,
};
