import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import {
  Form,
  Link,
  Links,
  Meta,
  NavLink,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
} from '@remix-run/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { httpBatchLink } from '@trpc/client';
import { useState, type ReactNode } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LocalTime } from '~/components/local-time';
import stylesHref from '~/styles.css';
import { useNonce } from '~/utils/nonce';
import { trpc } from '~/utils/trpc';

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesHref },
  // The app's icon (public/, drawn by scripts/make-icons.mjs): the tab, an iOS home screen, an installed app.
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
  { rel: 'apple-touch-icon', href: '/apple-touch-icon.png' },
  { rel: 'manifest', href: '/manifest.webmanifest' },
];

// An error page's title (routes without a `meta` of their own show this one too).
export const meta: MetaFunction = ({ error, matches }) => (error ? errorMeta(error, matches) : []);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, config } = context.ctx;
  const admin = user ? await context.services.admin.isAdmin(context.ctx) : false;
  const { siteName } = config;
  const { present, notice } = await context.http.openSignInNotice(config, request.headers.get('cookie'));
  if (!present) return { user, admin, siteName, signInNotice: null };
  // Told once, on the first page after the sign-in, to the user it was made for (ADR 0058).
  const signInNotice =
    notice && user && notice.userId === user.id ? { wrongCodes: notice.wrongCodes, lastAt: notice.lastAt } : null;
  return data(
    { user, admin, siteName, signInNotice },
    { headers: { 'Set-Cookie': context.http.clearedSignInNoticeCookie(config) } },
  );
}

function Header() {
  const data = useRouteLoaderData<typeof loader>('root');
  const user = data?.user;
  return (
    <header className="site-header">
      <nav aria-label="Main">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width={24} height={24} />
          <span>{data?.siteName ?? 'File sharing'}</span>
        </Link>
        {user ? (
          <>
            {/* NavLink marks the page you are on (aria-current="page"). */}
            <NavLink to="/upload">Upload</NavLink>
            <NavLink to="/files" end>
              My files
            </NavLink>
            <NavLink to="/settings">Settings</NavLink>
            {data?.admin ? <NavLink to="/admin">Admin</NavLink> : null}
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

/** Wrong two-factor codes tried for the account since its owner last signed in (ADR 0058). */
function SignInNotice() {
  const notice = useRouteLoaderData<typeof loader>('root')?.signInNotice;
  if (!notice) return null;
  return (
    <div className="sign-in-notice">
      <p className="alert" role="alert">
        {notice.wrongCodes} wrong sign-in codes were tried for your account on <LocalTime iso={notice.lastAt} />. If it
        was not you, <Link to="/settings">change your password</Link>.
      </p>
    </div>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#f5f6f8" media="(prefers-color-scheme: light)" />
        <meta name="theme-color" content="#11141a" media="(prefers-color-scheme: dark)" />
        <Meta />
        <Links />
      </head>
      <body>
        <Header />
        <SignInNotice />
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

// Every error as a page with its status (app/components/error-page.tsx). The routes with an
// action export the same boundary, so that the root loader (the signed-in user) still runs.
export function ErrorBoundary() {
  return <ErrorPage />;
}
