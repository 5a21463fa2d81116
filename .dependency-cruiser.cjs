// @ts-check
/**
 * The floors of src/, bottom to top. An import may run down or stay on its floor; one that runs up, or any circle of
 * files (type-only imports included), fails `npm run lint`. `npm run floors` redraws them (docs/development.md).
 *
 * Where the code placed a floor differently from the house sketch (docs/development.md):
 * - options/ stands on the core: its sections name core types (the host's order, the status dispatcher's pacing,
 *   the backoff) and every capability reads its own section, so it sits right under the capabilities.
 * - errors/ (how the module's errors answer over HTTP) is an edge: it knows the service's and the shopper's errors;
 *   the error base and its codes, which every floor throws, stand on the ground (domain/).
 * - entities.ts (the list for the host's DataSource) belongs to the module: it names every capability's entity.
 */
const FLOORS = [
  { name: 'ground', paths: ['src/domain/'] },
  { name: 'service and storage', paths: ['src/gateway/', 'src/persistence/'] },
  { name: 'shared core', paths: ['src/core/'] },
  { name: 'options', paths: ['src/options/'] },
  {
    name: 'capabilities',
    paths: ['src/checkout/', 'src/webhooks/', 'src/shipping/', 'src/refunds/', 'src/reconciliation/'],
  },
  { name: 'edges', paths: ['src/errors/', 'src/observability/', 'src/settings/', 'src/admin-ui/'] },
  { name: 'module', paths: ['src/invoice-payments.module.ts', 'src/index.ts', 'src/entities.ts'] },
  { name: 'hosts', paths: ['src/medusa/', 'src/vendure/'] },
];

const escape = (path) => path.replace(/[.]/g, '\\.');
const pattern = (paths) => `^(${paths.map(escape).join('|')})`;
const CAPABILITIES = FLOORS[4].paths.map((path) => path.slice('src/'.length, -1));

/** One rule per floor: nothing on it imports a floor above it. */
const upwardRules = FLOORS.slice(0, -1).map((floor, index) => ({
  name: `up-from-${floor.name.replace(/ /g, '-')}`,
  comment: `The ${floor.name} floor imports only floors below it.`,
  severity: 'error',
  from: { path: pattern(floor.paths) },
  to: { path: pattern(FLOORS.slice(index + 1).flatMap((above) => above.paths)) },
}));

/**
 * The crossings allowed between capabilities, each with its reason; every other import from one capability into
 * another fails.
 */
const CROSSINGS = [
  {
    // Medusa's provider contract has refundPayment: the checkout's provider hands it to the refunds capability
    // (and answers its errors), the one place a host reaches refunds through checkout.
    from: 'src/checkout/invoice-payment.provider.ts',
    to: [
      'src/refunds/refund.service.ts',
      'src/refunds/refund-settlement.service.ts',
      'src/refunds/errors.ts',
    ],
  },
];

const CAPABILITY = `^src/(${CAPABILITIES.join('|')})/`;
const capabilityRules = [
  {
    name: 'capabilities-apart',
    comment: "A capability imports no other capability's files: what two share moves down to the core.",
    severity: 'error',
    from: { path: CAPABILITY, pathNot: pattern(CROSSINGS.map((crossing) => crossing.from)) },
    to: { path: CAPABILITY, pathNot: '^src/$1/' },
  },
  ...CROSSINGS.map((crossing) => ({
    name: 'capabilities-apart-but-allowed',
    comment: `${crossing.from} may import only its allowed files of another capability.`,
    severity: 'error',
    from: { path: `${pattern([crossing.from])}$` },
    to: {
      path: CAPABILITY,
      pathNot: `${pattern(crossing.to)}$|^${escape(crossing.from.replace(/[^/]+$/, ''))}`,
    },
  })),
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file reaches itself through its imports, type-only ones included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upwardRules,
    {
      name: 'gateway-apart-from-persistence',
      comment: 'The service interface and the storage stand side by side: neither imports the other.',
      severity: 'error',
      from: { path: '^src/(gateway|persistence)/' },
      to: { path: '^src/(gateway|persistence)/', pathNot: '^src/$1/' },
    },
    ...capabilityRules,
    {
      name: 'observability-observes',
      comment: 'Observability watches the floors below; no other edge is its source.',
      severity: 'error',
      from: { path: '^src/observability/' },
      to: { path: '^src/(settings|admin-ui|errors)/' },
    },
    {
      name: 'sandbox-apart',
      comment:
        'The sandbox is an independent picture of the service: it imports nothing of the module, nor the module it.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/sandbox/' },
    },
    {
      name: 'nothing-imports-the-sandbox',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/sandbox/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'storefront-apart',
      comment: 'The storefront component speaks HTTP to the store; it shares no file with the module.',
      severity: 'error',
      from: { path: '^src/storefront/' },
      to: { path: '^src/', pathNot: '^src/storefront/' },
    },
    {
      name: 'nothing-imports-the-storefront',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storefront/' },
      to: { path: '^src/storefront/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The storefront and the Vendure dashboard have their own tsconfig (DOM, JSX); their imports still resolve.
    extraExtensionsToScan: ['.tsx'],
    reporterOptions: {
      text: { highlightFocused: true },
      archi: { collapsePattern: '^src/([^/]+)/|^src/[^/]+\\.ts$' },
    },
  },
};
