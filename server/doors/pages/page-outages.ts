// The pages' door for dependency outages (ADR 0030). Remix has no middleware around loaders and
// actions, and an error they throw is a 500 whose stack handleError logs. Every route's loader
// and action is wrapped here instead: an outage becomes a thrown 503 response, which the error
// boundary shows as its page (app/components/error-page.tsx), with Retry-After
// (app/entry.server.tsx), logged once per outage by the tracker rather than once per request.
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type ServerBuild } from '@remix-run/node';

type RouteFunction = (args: LoaderFunctionArgs | ActionFunctionArgs) => unknown;

/** The build with each route's loader and action answering an outage with a 503 page. */
export function answeringOutagesOnPages(build: ServerBuild): ServerBuild {
  const routes: ServerBuild['routes'] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const module = { ...route.module };
    if (module.loader) module.loader = guarded(module.loader as RouteFunction) as typeof module.loader;
    if (module.action) module.action = guarded(module.action as RouteFunction) as typeof module.action;
    routes[id] = { ...route, module };
  }
  return { ...build, routes };
}

function guarded(routeFunction: RouteFunction): RouteFunction {
  return async (args) => {
    try {
      return await routeFunction(args);
    } catch (error) {
      const outage = args.context.ctx.outages.recognise(error);
      if (!outage) throw error;
      throw json(
        { message: outage.message },
        {
          status: outage.status,
          headers: { 'Retry-After': String(outage.retryAfterSeconds), 'Cache-Control': 'no-store' },
        },
      );
    }
  };
}
