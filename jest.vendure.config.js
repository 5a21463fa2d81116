/**
 * The Vendure e2e suite (`npm run test:vendure`): a real Vendure server per database. Vendure loads parts of
 * itself with `import()`, which Jest runs only under `node --experimental-vm-modules`, so the suite has its own
 * script and config; `npm test` leaves it out.
 * @type {import('jest').Config}
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config, like jest.config.js
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/vendure'],
  testPathIgnorePatterns: [],
  testTimeout: 120000,
};
