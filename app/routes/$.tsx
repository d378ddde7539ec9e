import { json } from '@remix-run/node';

// Every path no other route claims: the not-found page, with status 404.
export function loader() {
  throw json({ message: 'Page not found.' }, { status: 404 });
}

export function action() {
  throw json({ message: 'Page not found.' }, { status: 404 });
}

export default function NotFound() {
  return null;
}
