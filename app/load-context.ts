// Types only: loaders and actions reach the server's services through `context`.
import type { RemixLoadContext } from '../server/remix-context';

declare module '@remix-run/node' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends RemixLoadContext {}
}
