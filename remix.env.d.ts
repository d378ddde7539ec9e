/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Loaders and actions are typed as single fetch sends them (remix.config.js, ADR 0031). The
// export makes this file a module, so that the declaration below adds to Remix's types.
export {};

declare module '@remix-run/server-runtime' {
  interface Future {
    v3_singleFetch: true;
  }
}
