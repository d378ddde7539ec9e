import { data } from '@remix-run/node';
import { ErrorPage } from '~/components/error-page';
import { FILE_NOT_FOUND } from '~/utils/share-messages';

// A GET or HEAD of /f/<id>/raw comes here only when there is no such file to serve (an unknown
// id, or content that is gone): server/doors/raw/raw-file.ts answers every other, and app.ts refuses
// the other methods with 405. Its not-found page says what the share page of that id says, not
// the splat route's "Page not found.": the address is right, the file is missing. (`$id_`: a
// route of its own, not nested in the share page's.)
export function loader() {
  throw data({ message: FILE_NOT_FOUND }, { status: 404 });
}

export default function RawFileMissing() {
  return null;
}

// Its own boundary, as the splat route's: the not-found page under the header of whoever is logged in.
export function ErrorBoundary() {
  return <ErrorPage />;
}
