// A ShareX custom uploader (.sxcu) for one API token (ADR 0015): it posts the file as
// multipart `file` to /api/v1/files with the token, and takes the share link from the JSON.
import type { ServiceContext } from '../context';
import { AppError } from '../utilities/errors';
import { findApiTokenOwner } from './api-tokens';
import { requireUser } from './guards';

export interface SharexConfig {
  Version: string;
  Name: string;
  DestinationType: string;
  RequestMethod: 'POST';
  RequestURL: string;
  Headers: Record<string, string>;
  Body: 'MultipartFormData';
  FileFormName: string;
  URL: string;
  ErrorMessage: string;
}

/** The uploader for a token of the signed-in user (a token of someone else's is refused). */
export async function sharexConfigFor(ctx: ServiceContext, token: unknown): Promise<SharexConfig> {
  const user = requireUser(ctx);
  const owner = typeof token === 'string' ? await findApiTokenOwner(ctx, token) : null;
  if (!owner || owner.id !== user.id) throw new AppError('BAD_REQUEST', 'That is not one of your valid API tokens');
  const host = new URL(ctx.linkBase).host;
  return {
    Version: '15.0.0',
    Name: `${ctx.config.siteName} (${host})`,
    DestinationType: 'ImageUploader, TextUploader, FileUploader',
    RequestMethod: 'POST',
    RequestURL: `${ctx.linkBase}/api/v1/files`,
    Headers: { Authorization: `Bearer ${token as string}` },
    Body: 'MultipartFormData',
    FileFormName: 'file',
    // ShareX's JSON syntax (13.7 and later): the share link and the error of our answers.
    URL: '{json:url}',
    ErrorMessage: '{json:error}',
  };
}
