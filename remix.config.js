/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ['**/.*', '**/*.test.*'],
  serverModuleFormat: 'esm',
  serverBuildPath: 'build/index.js',
  assetsBuildDirectory: 'public/build',
  publicPath: '/build/',
  // Every Remix v3 future flag the classic compiler knows (ADR 0031): the behaviour React Router 7
  // will have, and no notice at build time. (v3_routeConfig is for the Vite compiler only.)
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
  },
};
