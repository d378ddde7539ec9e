import type { UnfinishedUploadDto } from '../../server/services/resumable-uploads';
import { LocalTime } from '~/components/local-time';
import { formatBytes } from '~/utils/format';

/**
 * The user's resumable uploads that have not finished (ADR 0018, "What holds the room"): each
 * holds its whole size against the quota, so each has a Cancel that frees it. A plain form
 * (works without JavaScript; the cross-site guard judges it like every page action). Nothing
 * at all is shown when there is nothing unfinished.
 */
export function UnfinishedUploads({ uploads }: { uploads: UnfinishedUploadDto[] }) {
  if (uploads.length === 0) return null;
  return (
    <section className="unfinished-uploads" aria-labelledby="unfinished-uploads-heading">
      <h2 id="unfinished-uploads-heading">Unfinished uploads</h2>
      <p className="muted">Each one holds its whole size against your storage until it finishes or you cancel it.</p>
      <div className="table-wrap">
        <table className="files">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Received</th>
              <th scope="col">Started</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {uploads.map((upload) => (
              <tr key={upload.id} data-upload-id={upload.id}>
                <td className="name">{upload.originalName}</td>
                <td className="size">{formatBytes(upload.size)}</td>
                <td className="downloads">
                  {`${formatBytes(upload.receivedBytes)} (${receivedPercent(upload)}%)`}
                  {/* Shown only in the narrow layout, where no column header says what the figure is. */}
                  <span className="count-noun"> received</span>
                </td>
                <td className="date">
                  <LocalTime iso={upload.createdAt} />
                </td>
                <td>
                  <form method="post" action={`/uploads/${encodeURIComponent(upload.id)}/cancel`}>
                    <button
                      type="submit"
                      className="danger small"
                      aria-label={`Cancel the upload of ${upload.originalName}`}
                    >
                      Cancel
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Rounded down: an upload never reads 100% before its last byte. */
function receivedPercent(upload: UnfinishedUploadDto): number {
  return upload.size === 0 ? 0 : Math.floor((upload.receivedBytes / upload.size) * 100);
}
