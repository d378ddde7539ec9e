import { data } from '@remix-run/node';
import { ErrorPage } from '~/components/error-page';

// Every path no other route claims: the not-found page, with status 404.
export function loader() {
  throw data({ message: 'Page not found.' }, { status: 404 });
}

export function action() {
  throw data({ message: 'Page not found.' }, { status: 404 });
}

export default function NotFound() {
  return null;
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
