// The layering rules (ADR 0033), checked by `npm run lint:deps` and so by `npm test`.
// Doors (server/doors/: REST, tRPC, tus, the raw link, the pages' mount; and app/, cli/) call
// services; services call storage and the database; nothing below climbs back up.

/** Express and its types: the transport the services must not know. */
const EXPRESS = '(^|/)node_modules/(@types/)?express(/|$)';

/**
 * The server modules the browser bundle may take at run time: pure helpers with no I/O and no
 * secrets. Everything else in server/ reaches app/ through the Remix load context, or as types.
 */
const SERVER_MODULES_FOR_THE_BROWSER = [
  '^server/utilities/byte-sizes\\.ts$',
  '^server/utilities/thumbnail-types\\.ts$',
  '^server/collection-titles\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means a shared piece belongs one layer down: move it there.',
      from: { pathNot: '^app/' },
      to: { circular: true },
    },
    {
      // Relaxed for the pages: a page types its parent route's data by `typeof loader`
      // (error-page.tsx reads the root's), an `import type` that the build erases, so such a
      // cycle does not exist at run time. A cycle with any run-time import is still an error.
      name: 'no-circular-at-run-time-in-the-pages',
      severity: 'error',
      comment: 'A cycle means a shared piece belongs one layer down: move it there.',
      from: { path: '^app/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'app-reaches-server-through-the-load-context',
      severity: 'error',
      comment:
        'app/ takes from server/ only types and the pure helpers listed above; the loaders and actions reach the services through the Remix load context.',
      from: { path: '^app/' },
      to: {
        path: '^server/',
        pathNot: SERVER_MODULES_FOR_THE_BROWSER,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'services-know-nothing-of-transport',
      severity: 'error',
      comment: 'Services take (ctx, input) and throw AppError; each door maps that to its transport.',
      from: { path: '^server/services/' },
      to: { path: ['^server/(http|doors)/', EXPRESS] },
    },
    {
      name: 'services-reach-the-database-through-server-db',
      severity: 'error',
      comment:
        'Services use the ORM (EntityManager, entities) or named functions of server/db/; the query builder and SQL live in server/db/.',
      from: { path: '^server/(services|webhooks|instance)/' },
      to: { path: '(^|/)node_modules/(knex|@mikro-orm/knex)(/|$)' },
    },
    {
      name: 'storage-and-db-sit-below-services',
      severity: 'error',
      comment: 'The content store and the database are called by services, never the other way round.',
      from: { path: '^server/(storage|db)/' },
      to: { path: '^server/services/' },
    },
    {
      name: 'http-middleware-sits-below-the-doors',
      severity: 'error',
      comment:
        'server/http/ holds what the doors share (middleware, bearer recognition, the upload use case, the JSON error mapping); it never imports a door.',
      from: { path: '^server/http/' },
      to: { path: '^server/doors/' },
    },
    {
      name: 'a-door-never-imports-another-door',
      severity: 'error',
      comment: 'What two doors share belongs in server/http/ or a service, not in one of the doors.',
      from: { path: '^server/doors/([^/]+)/', pathNot: '^server/doors/rest/v1\\.ts$' },
      to: { path: '^server/doors/[^/]+/', pathNot: '^server/doors/$1/' },
    },
    {
      // tus is served under /api/v1 behind the REST router's token recognition, session
      // requirement and JSON 404, so the REST router mounts it, and that is its one other door.
      name: 'the-rest-router-mounts-only-tus',
      severity: 'error',
      comment: 'What two doors share belongs in server/http/ or a service, not in one of the doors.',
      from: { path: '^server/doors/rest/v1\\.ts$' },
      to: {
        path: '^server/doors/[^/]+/',
        pathNot: ['^server/doors/rest/', '^server/doors/tus/resumable-uploads\\.ts$'],
      },
    },
    {
      name: 'only-tests-import-tests',
      severity: 'error',
      comment: 'Test helpers and fixtures are not part of the product.',
      from: { pathNot: '^tests/' },
      to: { path: '^tests/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (a cycle through types is still a tangle), and the
    // app/ rule must tell them apart from imports that reach the browser bundle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
