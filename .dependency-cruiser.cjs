/**
 * Layer rules (`npm run check:boundaries`, part of `npm run check`). Dependencies point one way:
 * entry points and src/demo -> src/modules -> src/common. See each rule's comment for why.
 */

/**
 * What a module may import from another module besides its `*.service.ts`, `*.module.ts`,
 * `*.errors.ts` and `dto/**`: small files of pure types, constants or functions that are part of
 * the owning module's contract. Each entry: path, and why another module needs it.
 */
const MODULE_PUBLIC_FILES = [
  // the decorator every audited route carries; it binds the audit module's interceptor
  'src/modules/audit/audited.decorator.ts',
  // the decorators every platform API route carries (key, scope, acting user)
  'src/modules/platform-keys/platform-access.ts',
  // the event contract: type names and payload classes that publishers and webhooks share
  'src/modules/events/event-types.ts',
  'src/modules/events/event-catalog.ts',
  // pure function: revisions hash staged content exactly as documents hash versions
  'src/modules/documents/content-hash.ts',
  // providers their modules export for the retention sweeper (services in all but file name)
  'src/modules/auth/token-retention.ts',
  'src/modules/webhooks/delivery-retention.ts',
  // the states of a candidate revision: the events' contract, which revisions publish to
  'src/modules/events/revision-status.ts',
  // the plans and what each grants: auth resolves a credential's entitlements with them
  'src/modules/tenancy/plans.ts',
  // the base of the platform routes' interceptors that file an audit line under a row's tenant
  'src/modules/audit/route-tenant.interceptor.ts',
];

/** A repo-relative path as an anchored regular expression. */
const exactly = (path) => `^${path.replaceAll('.', '\\.')}$`;

function databaseRule(packages, alsoAllowed) {
  return {
    name: 'database-access-only-in-repositories',
    comment:
      'Only repositories, src/common/database/, migrations and entities/ folders use typeorm, ' +
      '@nestjs/typeorm or pg.',
    severity: 'error',
    from: {
      path: ['^src/', '^migrations/'],
      pathNot: [
        '\\.repository\\.ts$',
        '/entities/',
        '^src/common/database/',
        '^migrations/',
        ...alsoAllowed,
      ],
    },
    to: { path: packages },
  };
}

const MODULE_CONTRACT_RULE = {
  name: 'module-imports-another-through-its-contract',
  comment:
    'A module reaches another only through its service, Nest module, DTOs, errors and the ' +
    'MODULE_PUBLIC_FILES list above: never into its entities, repositories or internals.',
  severity: 'error',
  from: { path: '^src/modules/([^/]+)/' },
  to: {
    path: '^src/modules/[^/]+/',
    pathNot: [
      '^src/modules/$1/',
      // a module's own sub-context (webhooks/outbox) has its service and Nest module too
      '^src/modules/[^/]+/[^/]+\\.(service|module|errors)\\.ts$',
      '^src/modules/[^/]+/[^/]+/[^/]+\\.(service|module)\\.ts$',
      '^src/modules/[^/]+/dto/',
      ...MODULE_PUBLIC_FILES.map(exactly),
    ],
  },
};

/**
 * Cycles between files that are allowed, each with why. Keep it short: a new cycle fails the check.
 */
const ALLOWED_FILE_CYCLES = [
  // two tables whose foreign keys name each other (a document and its current version); the
  // entities refer to each other lazily, as TypeORM's decorators take them
  '^src/modules/documents/entities/',
  // the ESM entry re-exports './index.cjs', which the resolver takes for this very file
  '^src/testing/index\\.ts$',
  // being reworked by their contexts' owners: the idempotency store and its repository, the
  // sender and its attempt errors (remove each entry once the cycle is gone)
  '^src/modules/revisions/(idempotency\\.store|repository/idempotency-keys\\.repository)\\.ts$',
  '^src/modules/webhooks/delivery/(attempt-errors|webhook-sender)\\.ts$',
];

/** Files nothing imports that are still used: each is loaded by a tool, named here with it. */
const ENTRY_FILES = [
  // declarations, tests (jest finds them by name), TypeScript projects, jest's global hooks
  '\\.d\\.c?ts$',
  '\\.(spec|e2e-spec)\\.ts$',
  '(^|/)tsconfig[^/]*\\.json$',
  '^test/support/jest-global-(setup|teardown)\\.[cm]?[jt]s$',
  // preloaded into the measured process (`node --require`, see bench/README.md)
  '^bench/memory-sampler\\.cjs$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No two files depend on each other, directly or through others: a cycle means neither can ' +
        'be understood, tested or moved alone (and ESM may see one half uninitialised). Break it by ' +
        'moving what both need into a third file. ALLOWED_FILE_CYCLES lists the exceptions.',
      severity: 'error',
      from: { pathNot: ALLOWED_FILE_CYCLES },
      to: { circular: true },
    },
    {
      name: 'no-circular-contexts',
      comment:
        'Bounded contexts (src/modules/<name>, their cli/ and platform/ folders included) form no ' +
        'cycle: when two need each other, one owns the contract (types, a port in src/common) and ' +
        'the other depends on it, never both ways (e.g. events own the revision states the ' +
        'revision events carry; tenancy provides TenantDirectory to the audit trail).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment:
        'A source file nothing imports is dead code, or an entry point to name in ENTRY_FILES.',
      severity: 'error',
      from: { orphan: true, pathNot: ENTRY_FILES },
      to: {},
    },
    {
      name: 'not-to-dev-dep',
      comment:
        'Code that ships (src/, migrations/) must not import a devDependency: it is absent where ' +
        'the package is installed for production. Unit specs and the tests may.',
      severity: 'error',
      from: { path: ['^src/', '^migrations/'], pathNot: ['\\.spec\\.ts$'] },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'common-imports-no-module',
      comment:
        'src/common/ is the lowest layer: every module, the CLI and the demo seed build on it, so ' +
        'it must not import them back (pass what it needs in instead).',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: ['^src/modules/', '^src/demo/', '^src/cli/', '^src/[^/]+\\.ts$'] },
    },
    MODULE_CONTRACT_RULE,
    databaseRule('^node_modules/((@types/)?(typeorm|pg)|@nestjs/typeorm)/', []),
    {
      name: 'http-server-only-in-platform',
      comment:
        'Only src/common/http/platform/ knows which HTTP server runs under Nest (express.ts, ' +
        'fastify.ts); everything else uses HttpPlatform. eslint has the same rule per file.',
      severity: 'error',
      from: { pathNot: '^src/common/http/platform/' },
      to: {
        path: '^node_modules/(@types/)?(express|fastify|@fastify/[^/]+|@nestjs/platform-(express|fastify))/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // generated code (npm run openapi) is checked by its generator, not by our layering
    exclude: { path: ['^dist/', '^examples/platform-jest-suite/', '^examples/generated-client/'] },
    // `import type` counts: a type-only import is still a dependency on the layer it names
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.cts'],
    },
  },
};
