import { counted, formatExpiryDate } from '~/utils/format';

/**
 * What a recipient needs to know to fetch a link's content in time: when it expires and how many
 * downloads it has left. Nothing when the link has neither (the owner has the settings instead).
 */
export function LinkLimits({ expiresAt, downloadsLeft }: { expiresAt: string | null; downloadsLeft: number | null }) {
  if (expiresAt === null && downloadsLeft === null) return null;
  return (
    <p className="link-limits">
      {[
        expiresAt === null ? null : formatExpiryDate(expiresAt),
        downloadsLeft === null ? null : `${counted(downloadsLeft, 'download')} left`,
      ]
        .filter(Boolean)
        .join(' · ')}
    </p>
  );
}
