import { LockIcon } from '~/components/icons';
import { LinkLimits } from '~/components/link-limits';
import { LocalTime } from '~/components/local-time';
import type { CurrentShareSettings } from '~/components/share-settings-fields';
import { ShareLink } from '~/components/share-link';
import { formatBytes, formatDownloads, formatExpiry } from '~/utils/format';

/** What the details say of a file. */
interface DetailedFile {
  originalName: string;
  size: number;
  createdAt: string;
  typeInWords: string;
}

/**
 * A file's page beside its preview: its name, facts (the owner also sees the link's settings,
 * views and downloads), the download button and the share link.
 */
export function FileDetails({
  file,
  name,
  owner,
  expiresAt,
  downloadsLeft,
  rawPath,
  shareUrl,
  now,
}: {
  file: DetailedFile;
  /** The name to show: the file's, or a new one while a rename is on its way. */
  name: string;
  owner: { current: CurrentShareSettings; views: number } | null;
  expiresAt: string | null;
  downloadsLeft: number | null;
  rawPath: string;
  shareUrl: string;
  now: number;
}) {
  return (
    <div className="share-details">
      <h1 className="file-name">{name}</h1>
      <dl className="facts">
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(file.size)}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{file.typeInWords}</dd>
        </div>
        <div>
          <dt>Uploaded</dt>
          <dd>
            <LocalTime iso={file.createdAt} />
          </dd>
        </div>
        {owner ? <OwnerFacts current={owner.current} views={owner.views} now={now} /> : null}
      </dl>
      {/* What a recipient needs to know to fetch the file in time; the owner has the settings below. */}
      {owner ? null : <LinkLimits expiresAt={expiresAt} downloadsLeft={downloadsLeft} />}
      <p className="actions">
        <a className="button share-download" href={`${rawPath}?download=1`} download>
          {`Download (${formatBytes(file.size)})`}
        </a>
      </p>
      <p className="share-row">
        <span className="muted">Share link</span>
        <ShareLink url={shareUrl} label="Share link" />
      </p>
    </div>
  );
}

/** The link's settings and counts, as only its owner sees them. */
function OwnerFacts({ current, views, now }: { current: CurrentShareSettings; views: number; now: number }) {
  return (
    <>
      <div>
        <dt>Link</dt>
        <dd className="expiry">{formatExpiry(current.expiresAt, now)}</dd>
      </div>
      <div>
        <dt>Views</dt>
        <dd className="views">{views}</dd>
      </div>
      <div>
        <dt>Downloads</dt>
        <dd className="downloads">{formatDownloads(current.downloads, current.maxDownloads)}</dd>
      </div>
      <div>
        <dt>Password</dt>
        <dd>
          {current.hasPassword ? (
            <>
              <LockIcon /> Yes
            </>
          ) : (
            'No'
          )}
        </dd>
      </div>
    </>
  );
}
