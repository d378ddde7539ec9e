import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { formatLimit } from '~/utils/format';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ matches }) => [
  { title: pageTitle(matches) },
  { name: 'description', content: 'Upload files and share them with a link.' },
];

export async function loader({ context }: LoaderFunctionArgs) {
  // The largest file the server takes (MAX_UPLOAD_BYTES), said in the words the upload form uses.
  return { username: context.ctx.user?.username ?? null, maxUpload: formatLimit(context.ctx.config.maxUploadBytes) };
}

export default function Home() {
  const { username, maxUpload } = useLoaderData<typeof loader>();
  return (
    <main className="narrow">
      <h1>Share files with a link</h1>
      <p className="lead">
        {`Upload a file of up to ${maxUpload} and get a link anyone can open`}: they see a preview and can download it.
        You keep the list of what you shared, and can delete a file whenever you like.
      </p>
      {username ? (
        <p className="actions">
          <Link className="button" to="/upload">
            Upload a file
          </Link>
          <Link className="button secondary" to="/files">
            My files
          </Link>
        </p>
      ) : (
        <p className="actions">
          <Link className="button" to="/login">
            Log in
          </Link>
        </p>
      )}
    </main>
  );
}
