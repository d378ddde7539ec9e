// Moves a whole install (users, sessions, API tokens, file records and their content) from one database
// and store to another: typically SQLite + a local folder onto PostgreSQL + S3, to scale out.
// Idempotent: what the target already has is kept, so a second run only fills gaps, and a run
// cut short can simply be run again. Content goes before its record, as in an upload.
import { ApiTokenSchema } from '../db/entities/api-token.entity';
import { FileSchema, type StoredFile } from '../db/entities/file.entity';
import { SessionSchema } from '../db/entities/session.entity';
import { UserSchema, type User } from '../db/entities/user.entity';
import { insertRowsMissingById } from '../db/install-move';
import type { EntityManager } from '../db/orm';
import type { ContentStore } from '../storage/content-store';

export interface InstallSide {
  em: EntityManager;
  store: ContentStore;
}

export interface MoveReport {
  users: number;
  files: number;
  bytes: number;
  /** Content copied in this run (the rest was there already). */
  copiedFiles: number;
}

export class MoveVerificationError extends Error {
  override name = 'MoveVerificationError';
}

const BATCH = 500;

export async function moveInstall(source: InstallSide, target: InstallSide): Promise<MoveReport> {
  const users = await source.em.find(UserSchema, {}, { orderBy: { id: 'asc' }, disableIdentityMap: true });
  for (let i = 0; i < users.length; i += BATCH) {
    await insertRowsMissingById(
      target.em,
      UserSchema,
      users.slice(i, i + BATCH).map((user) => ({ ...user })),
    );
  }

  const now = new Date();
  const sessions = await source.em.find(SessionSchema, { expiresAt: { $gt: now } }, { disableIdentityMap: true });
  for (let i = 0; i < sessions.length; i += BATCH) {
    await insertRowsMissingById(
      target.em,
      SessionSchema,
      sessions.slice(i, i + BATCH).map((session) => ({ ...session })),
    );
  }

  // API tokens too: scripts and ShareX keep working after the move.
  const tokens = await source.em.find(ApiTokenSchema, {}, { disableIdentityMap: true });
  for (let i = 0; i < tokens.length; i += BATCH) {
    await insertRowsMissingById(
      target.em,
      ApiTokenSchema,
      tokens.slice(i, i + BATCH).map((token) => ({ ...token })),
    );
  }

  const files = await source.em.find(FileSchema, {}, { orderBy: { id: 'asc' }, disableIdentityMap: true });
  let copiedFiles = 0;
  let bytes = 0;
  for (const file of files) {
    const size = Number(file.size);
    bytes += size;
    const there = await target.store.stat(file.storedName);
    if (!there || there.size !== size) {
      const content = await source.store.open(file.storedName);
      await target.store.write(file.storedName, content.stream, { maxBytes: size });
      copiedFiles++;
    }
    await insertRowsMissingById(target.em, FileSchema, [{ ...file, size }]);
  }

  await verify(target, users, files);
  return { users: users.length, files: files.length, bytes, copiedFiles };
}

/** Every user and file of the source is in the target, every file with content of its size. */
async function verify(target: InstallSide, users: User[], files: StoredFile[]): Promise<void> {
  const userIds = new Set(
    (await target.em.find(UserSchema, {}, { fields: ['id'], disableIdentityMap: true })).map((user) => user.id),
  );
  const missingUser = users.find((user) => !userIds.has(user.id));
  if (missingUser) throw new MoveVerificationError(`user ${missingUser.username} is not in the target`);
  const targetFiles = new Map(
    (await target.em.find(FileSchema, {}, { fields: ['id', 'size', 'storedName'], disableIdentityMap: true })).map(
      (file) => [file.id, file],
    ),
  );
  for (const file of files) {
    const moved = targetFiles.get(file.id);
    if (!moved || Number(moved.size) !== Number(file.size))
      throw new MoveVerificationError(`file ${file.id} is not in the target database`);
    const stat = await target.store.stat(file.storedName);
    if (!stat || stat.size !== Number(file.size)) {
      throw new MoveVerificationError(
        `the content of file ${file.id} is missing or has another size in the target store`,
      );
    }
  }
}
