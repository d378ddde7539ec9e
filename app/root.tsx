import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { json } from '@remix-run/node';
import {
  Form,
  Link,
  Links,
  Meta,
  NavLink,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useRouteError,
  useRouteLoaderData,
} from '@remix-run/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { httpBatchLink } from '@trpc/client';
import { useState, type ReactNode } from 'react';
import stylesHref from '~/styles.css';
import { useNonce } from '~/utils/nonce';
import { trpc } from '~/utils/trpc';

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesHref },
  { rel: 'icon', href: 'data:,' },
];

export async function loader({ context }: LoaderFunctionArgs) {
  return json({ user: context.ctx.user });
}

function Header() {
  const data = useRouteLoaderData<typeof loader>('root');
  const user = data?.user;
  return (
    <header className="site-header">
      <nav aria-label="Main">
        <Link to="/" className="brand">
          File sharing
        </Link>
        {user ? (
          <>
            {/* NavLink marks the page you are on (aria-current="page"). */}
            <NavLink to="/upload">Upload</NavLink>
            <NavLink to="/files" end>
              My files
            </NavLink>
            <NavLink to="/settings">Settings</NavLink>
            <Form method="post" action="/logout" className="inline">
              <button type="submit" className="link-button" title={`Logged in as ${user.username}`}>
                Log out
              </button>
            </Form>
          </>
        ) : (
          <NavLink to="/login">Log in</NavLink>
        )}
      </nav>
    </header>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <Header />
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1 } } }));
  const [trpcClient] = useState(() => trpc.createClient({ links: [httpBatchLink({ url: '/trpc' })] }));
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <Outlet />
      </QueryClientProvider>
    </trpc.Provider>
  );
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Please log in',
  403: 'Not allowed',
  404: 'Not found',
  410: 'Link gone',
  413: 'File too large',
  429: 'Too many attempts',
};

// Every error as a page with its status; a fault shows a generic message, never a stack trace.
export function ErrorBoundary() {
  const error = useRouteError();
  // Missing when the root loader itself failed: then only the home link is offered.
  const user = useRouteLoaderData<typeof loader>('root')?.user;
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const message =
    isRouteErrorResponse(error) && typeof error.data?.message === 'string'
      ? error.data.message
      : status === 404
        ? 'Page not found.'
        : 'Something went wrong on our side. Please try again.';
  return (
    <main className="narrow error-page">
      <title>{`${TITLES[status] ?? 'Error'} · File sharing`}</title>
      <p className="status">{status}</p>
      <h1>{TITLES[status] ?? 'Something went wrong'}</h1>
      <p>{message}</p>
      <p className="actions">
        <Link to="/">Go to the home page</Link>
        {user ? <Link to="/files">Go to my files</Link> : null}
      </p>
    </main>
  );
}
