// The tus 1.0 doors (ADR 0019): /api/v1/uploads, and a file request's /r/<id>/uploads for guests
// (ADR 0048), speak the protocol through @tus/server, whose data store and locker here are thin
// adapters over the services. Both are made per request around its service context, so every
// rule (ownership, quota, a request's limits, claims) is the services'. Errors leave as the
// API's JSON {"error": …}.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Server } from '@tus/server';
import { DataStore, TUS_RESUMABLE, TUS_VERSION, Upload, type Lock, type Locker } from '@tus/utils';
import type { Request as ExpressRequest, Response as ExpressResponse, NextFunction, RequestHandler } from 'express';
import { sendNodeResponse } from 'srvx/node';
import type { ServiceContext } from '../../context';
import type { ResumableUpload } from '../../db/entities/resumable-upload.entity';
import { isAppError } from '../../utilities/errors';
import { createGuestResumableUpload, findGuestResumableUpload } from '../../services/file-requests/guest-uploads';
import { shareUrl, type FileDto } from '../../services/files';
import {
  appendToResumableUpload,
  claimResumableUpload,
  createResumableUpload,
  findOwnResumableUpload,
  newUploadId,
  type NewResumableUpload,
  requireUnfinished,
  RESUMABLE_UPLOAD_LIFETIME_MS,
  terminateResumableUpload,
  type UploadClaim,
} from '../../services/resumable-uploads';
import { DirectBodyRequest } from './direct-tus-body';
import { sendJson } from '../../http/json-response';
import { closeAfterDiscardingBody } from '../../http/lingering-close';
import { readGuestGrant } from '../../http/receive-request-upload';

const UPLOADS_PATH = '/api/v1/uploads';

/**
 * Where an upload's requests come in, and whose rules they follow: the caller's own uploads
 * (/api/v1/uploads), or a guest's into a file request (/r/<id>/uploads, ADR 0048). Each gives the
 * context the upload is carried on in (its owner's), and the final request's answer.
 */
interface UploadDoor {
  path: string;
  create(ctx: ServiceContext, input: NewResumableUpload, claimToken: string | null): Promise<ActingUpload>;
  find(ctx: ServiceContext, id: string): Promise<ActingUpload>;
  finished(ctx: ServiceContext, file: FileDto): unknown;
}

/** An upload, and the context its owner's rules are applied in. */
interface ActingUpload {
  upload: ResumableUpload;
  ctx: ServiceContext;
}

/** The caller's own uploads: the caller is known (401 before this otherwise). */
const ownUploads: UploadDoor = {
  path: UPLOADS_PATH,
  create: async (ctx, input, claimToken) => ({ upload: await createResumableUpload(ctx, input, claimToken), ctx }),
  find: async (ctx, id) => ({ upload: await findOwnResumableUpload(ctx, id), ctx }),
  // As POST /api/v1/files answers.
  finished: (ctx, file) => ({ file, url: shareUrl(ctx, file.id) }),
};

/** A guest's uploads into one file request: no account; the request's rules, the owner's space. */
function guestUploadsInto(requestId: string, grant: string | null): UploadDoor {
  return {
    path: `/r/${requestId}/uploads`,
    create: async (ctx, input, claimToken) => {
      const { upload, ownerCtx } = await createGuestResumableUpload(ctx, requestId, { grant }, input, claimToken);
      return { upload, ctx: ownerCtx };
    },
    find: async (ctx, id) => {
      const { upload, ownerCtx } = await findGuestResumableUpload(ctx, requestId, id);
      return { upload, ctx: ownerCtx };
    },
    // As a guest's multipart files are answered: their name and size, never the link or the owner.
    finished: (_ctx, file) => ({ files: [{ originalName: file.originalName, size: file.size }] }),
  };
}

/** Handles every tus request under /api/v1/uploads; the caller is already known (401 before this otherwise). */
export function resumableUploads(): RequestHandler {
  return (req, res, next) => handleTus(req, res, next, ownUploads);
}

/** Handles every tus request under /r/<id>/uploads: a guest's resumable uploads into a file request. */
export function guestResumableUploads(): RequestHandler {
  return (req, res, next) => {
    const requestId = req.params.id ?? '';
    handleTus(req, res, next, guestUploadsInto(requestId, readGuestGrant(req.headers.cookie, requestId)));
  };
}

function handleTus(req: ExpressRequest, res: ExpressResponse, next: NextFunction, door: UploadDoor): void {
  const refusal = protocolRefusal(req);
  if (refusal) {
    sendProtocolRefusal(req, res, refusal);
    return;
  }
  const ctx: ServiceContext = res.locals.ctx;
  const request = new DirectBodyRequest(req as IncomingMessage, res as ServerResponse);
  const store = new ServiceDataStore(ctx, request, door);
  const tus = new Server({
    path: door.path,
    datastore: store,
    // HEAD only reads the committed offset: it needs no claim (and never waits for one).
    locker: (request: Request) => (request.method === 'HEAD' ? readOnlyLocker : store.claims),
    maxSize: ctx.config.maxUploadBytes,
    namingFunction: () => newUploadId(),
    // Relative (tus 1.0 allows it): the client goes on at the address it started at, whatever
    // BASE_URL says. A page opened at 127.0.0.1 may only talk to 127.0.0.1 (its CSP).
    generateUrl: (_request, { id }) => `${door.path}/${id}`,
    // CORS only (the pages are same-origin, whatever address they were opened at).
    allowedOrigins: [new URL(ctx.config.baseUrl).origin],
    disableTerminationForFinishedUploads: true,
    onUploadFinish: async (request, upload) =>
      finishedResponse(store, request.method, store.finishedFile ?? (await store.finishUnwritten(upload.id))),
    onResponseError: (_request, error) => {
      // A database or storage outage becomes an AppError too: 503 with Retry-After, logged once per outage (ADR 0030).
      const refusal = ctx.outages.recognise(error) ?? error;
      if (isAppError(refusal)) {
        if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
        return { status_code: refusal.status, body: refusal.message };
      }
      if (error instanceof Error) {
        ctx.log.error({ err: error }, 'resumable upload request failed');
        return { status_code: 500, body: 'Internal server error' };
      }
      return undefined; // the protocol's own refusals (409, 412, 413…) keep their status
    },
  });
  tus
    .handleWeb(request)
    .then(asApiResponse)
    .then((response) => sendNodeResponse(res as ServerResponse, response))
    .catch(next);
}

interface ProtocolRefusal {
  status: number;
  error: string;
}

/**
 * The requests tus 1.0.0 tells a server how to refuse, where @tus/server answers otherwise
 * (ADR 0019, "Refusals"): checked before tus sees the request, which is then not processed.
 */
function protocolRefusal(req: IncomingMessage): ProtocolRefusal | null {
  // Core protocol: OPTIONS carries no Tus-Resumable, and the server ignores one.
  if (req.method === 'OPTIONS') return null;
  // Core protocol: a version the server does not speak is 412 with Tus-Version (tus: 400 for a
  // wrong one, and 412 without Tus-Version for none).
  if (req.headers['tus-resumable'] !== TUS_RESUMABLE)
    return { status: 412, error: `This server speaks tus ${TUS_RESUMABLE}: send Tus-Resumable: ${TUS_RESUMABLE}` };
  // Nor concatenation (not in Tus-Extension either): each upload is one stream and one file. A
  // client's mistake too, so 400 (tus: 501 for a partial upload, or the length's 400 for a final one).
  if (req.method === 'POST' && req.headers['upload-concat'] !== undefined) {
    return { status: 400, error: 'Upload-Concat is not supported: send each file as one upload' };
  }
  // We do not offer creation-defer-length (not in Tus-Extension): the length is needed at
  // creation to refuse sizes and hold quota. The client's mistake, so 400 (tus: 501).
  if (
    req.method === 'POST' &&
    (req.headers['upload-length'] === undefined || req.headers['upload-defer-length'] !== undefined)
  ) {
    return { status: 400, error: 'Upload-Length is required: this server does not support Upload-Defer-Length' };
  }
  if (req.method === 'PATCH') {
    // Core protocol: the server SHOULD answer 415 (tus: 403 for none, 400 for another type).
    if (req.headers['content-type'] !== 'application/offset+octet-stream')
      return { status: 415, error: 'Content-Type must be application/offset+octet-stream' };
    // A missing header is a bad request, as tusd answers (tus: 403, which says "not allowed").
    if (req.headers['upload-offset'] === undefined) return { status: 400, error: 'Upload-Offset is required' };
    if (req.headers['upload-length'] !== undefined)
      return { status: 400, error: 'Upload-Length is set at creation and cannot be sent later' };
  }
  return null;
}

function sendProtocolRefusal(req: IncomingMessage, res: ServerResponse, refusal: ProtocolRefusal): void {
  res.setHeader('Tus-Resumable', TUS_RESUMABLE);
  if (refusal.status === 412) res.setHeader('Tus-Version', TUS_VERSION.join(','));
  // A body that was sent along stays unread: this connection serves no other request.
  if (!req.complete) closeAfterDiscardingBody(req, res);
  sendJson(res, refusal.status, { error: refusal.error });
}

/** The final request's answer: what the door says of the file (201 when the upload was created with all its bytes). */
function finishedResponse(store: ServiceDataStore, method: string, file: FileDto | null) {
  if (!file) return {};
  return {
    status_code: method === 'POST' ? 201 : 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(store.finishedAnswer(file)),
  };
}

/** Refusals become the API's JSON error; the protocol's headers stay. */
async function asApiResponse(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const text = (await response.text()).trim();
  const headers = new Headers(response.headers);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  headers.delete('Content-Length');
  return new Response(JSON.stringify({ error: text || response.statusText }), { status: response.status, headers });
}

const readOnlyLocker: Locker = { newLock: () => ({ lock: async () => undefined, unlock: async () => undefined }) };

/** The claims of one request, by upload: the store writes with the token its lock took. */
class ClaimLocker implements Locker {
  private readonly claims = new Map<string, UploadClaim>();

  constructor(private readonly ctx: ServiceContext) {}

  tokenFor(id: string): string | null {
    return this.claims.get(id)?.token ?? null;
  }

  newLock(id: string): Lock {
    return {
      lock: async (signal, requestRelease) => {
        this.claims.set(id, await claimResumableUpload(this.ctx, id, { signal, onReleaseRequested: requestRelease }));
      },
      unlock: async () => {
        const claim = this.claims.get(id);
        this.claims.delete(id);
        await claim?.release();
      },
    };
  }
}

/** @tus/server's data store over the service, for one request. */
class ServiceDataStore extends DataStore {
  readonly claims: ClaimLocker;
  /**
   * Rows this request read through the service (@tus/server reads an upload under its claim,
   * then writes or removes it): read once per request, with the context they are acted on in.
   */
  private readonly rows = new Map<string, ActingUpload>();
  /** The file the upload became during this request, for the final answer. */
  finishedFile: FileDto | null = null;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly request: DirectBodyRequest,
    private readonly door: UploadDoor,
  ) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
    this.claims = new ClaimLocker(ctx);
  }

  override async create(upload: Upload): Promise<Upload> {
    const created = await this.door.create(
      this.ctx,
      { id: upload.id, length: upload.size ?? -1, metadata: upload.metadata ?? {} },
      this.claims.tokenFor(upload.id),
    );
    this.rows.set(created.upload.id, created);
    return asTusUpload(created.upload);
  }

  override async getUpload(id: string): Promise<Upload> {
    const found = await this.door.find(this.ctx, id);
    // Before tus judges the PATCH's offset (409) or its bytes past the length (413): a finished
    // upload refuses every PATCH the same way (ADR 0019).
    if (this.request.method === 'PATCH') requireUnfinished(found.upload);
    this.rows.set(id, found);
    return asTusUpload(found.upload);
  }

  /** `stream` is tus' side of the body, which carries no bytes: they are read from the request itself (direct-tus-body.ts). */
  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const { upload, ctx } = await this.row(id);
    const body = this.request.takeBody(stream, Number(upload.length) - offset);
    try {
      const result = await appendToResumableUpload(ctx, upload, offset, body.content, this.claims.tokenFor(id));
      this.rows.delete(id);
      this.finishedFile = result.file;
      body.throwIfOverLimit();
      return result.receivedBytes;
    } finally {
      body.release();
    }
  }

  /**
   * The file an upload that tus calls complete with no write becomes: an empty one, created
   * without a body (tus-js-client sends no PATCH for a 0-byte file). Its creation carried every
   * byte, so it finishes as a creation that carries them does: an append (of nothing), under
   * the upload's claim (tus let go of its own before onUploadFinish).
   */
  async finishUnwritten(id: string): Promise<FileDto | null> {
    const lock = this.claims.newLock(id);
    await lock.lock(this.request.signal, () => undefined);
    try {
      const { upload, ctx } = await this.door.find(this.ctx, id);
      return (await appendToResumableUpload(ctx, upload, 0, Readable.from([]), this.claims.tokenFor(id))).file;
    } finally {
      await lock.unlock();
    }
  }

  /** What the final request answers of the file the upload became. */
  finishedAnswer(file: FileDto): unknown {
    return this.door.finished(this.ctx, file);
  }

  override async remove(id: string): Promise<void> {
    const { upload, ctx } = await this.row(id);
    await terminateResumableUpload(ctx, upload, this.claims.tokenFor(id));
    this.rows.delete(id);
  }

  private async row(id: string): Promise<ActingUpload> {
    return this.rows.get(id) ?? this.door.find(this.ctx, id);
  }

  override getExpiration(): number {
    return RESUMABLE_UPLOAD_LIFETIME_MS;
  }
}

/** What the protocol shows of an upload: never the share settings (a password) sent with it. */
function asTusUpload(row: ResumableUpload): Upload {
  return new Upload({
    id: row.id,
    size: Number(row.length),
    offset: row.finishedAt ? Number(row.length) : Number(row.receivedBytes),
    metadata: { filename: row.originalName, filetype: row.mimeType },
    creation_date: row.createdAt.toISOString(),
  });
}
