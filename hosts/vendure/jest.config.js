/**
 * The package installed from its packed tarball (`pretest`: `npm pack` at the root, then `npm install --no-save`),
 * beside Vendure 3.7 and its dashboard; `test`: `vite build` of the dashboard with the plugin's extension, then the
 * server from src/vendure-config.ts and the order page in Chromium. Build the package first (`npm run build` there).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.pack/', '<rootDir>/dist/'],
  testTimeout: 180000,
};
