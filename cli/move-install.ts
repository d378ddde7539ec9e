// npm run move-install -- --from-database file:./data/app.db --from-uploads ./data/uploads
// Copies a SQLite + local-folder install into the database and store that the environment
// configures (DATABASE_URL, S3_*: usually PostgreSQL + S3), then checks every user and file
// arrived with content of the right size. Safe to run again: it only fills what is missing.
// Every failure is one line on stderr and a non-zero exit code.
import path from 'node:path';
import { ConfigError, describeDatabase } from '../server/config';
import { initOrm, type Orm } from '../server/db/orm';
import { errorSummary } from '../server/utilities/logged-errors';
import { createDeps, type Deps } from '../server/deps';
import { moveInstall, MoveVerificationError } from '../server/services/install-move';
import { LocalDiskStore } from '../server/storage/local-disk-store';
import { CliError, loadCommandConfig, printHelpIfAsked, usageError, type CommandHelp } from './cli-support';

const HELP: CommandHelp = {
  name: 'move-install',
  forms: ['--from-database file:<path> --from-uploads <folder>'],
  summary: [
    'Copies a SQLite + local-folder install (stopped) into the database and store the environment configures',
    '(DATABASE_URL, S3_*), then checks every user and file arrived. Safe to run again: it only fills what is missing.',
  ],
  entries: [
    ['--from-database file:<path>', 'the old SQLite database, e.g. file:./data/app.db'],
    ['--from-uploads <folder>', 'the old upload folder, e.g. ./data/uploads'],
  ],
};

function option(argv: string[], name: string): string {
  const at = argv.indexOf(name);
  const value = at >= 0 ? argv[at + 1] : undefined;
  if (!value || value.startsWith('--')) throw usageError(HELP, `${name} is missing`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  if (printHelpIfAsked(argv, HELP)) return 0;
  const known = new Set(['--from-database', '--from-uploads']);
  const unknown = argv.filter((arg, i) => arg.startsWith('--') && !known.has(arg) && !known.has(argv[i - 1]));
  if (unknown.length) throw usageError(HELP, `Unknown option '${unknown[0]}'`);
  const fromDatabase = option(argv, '--from-database');
  const fromUploads = path.resolve(option(argv, '--from-uploads'));
  const match = /^file:(.+)$/.exec(fromDatabase);
  if (!match) throw usageError(HELP, '--from-database must be a SQLite file as file:/path/app.db');
  const sourcePath = path.resolve(match[1]);

  const config = loadCommandConfig();
  if (config.database.dialect === 'sqlite' && config.database.path === sourcePath) {
    throw new CliError(
      'The target database (DATABASE_URL) is the source itself: point DATABASE_URL at the new database',
    );
  }

  let source: Orm;
  try {
    source = await initOrm({ dialect: 'sqlite', path: sourcePath });
  } catch (error) {
    throw new CliError(`Cannot open the source database ${sourcePath}: ${errorSummary(error)}`);
  }
  let target: Deps;
  try {
    target = await createDeps(config, { logLevel: 'warn' });
  } catch (error) {
    await source.close();
    throw new CliError(`Cannot open the target database ${describeDatabase(config)}: ${errorSummary(error)}`);
  }
  try {
    const report = await moveInstall(
      { em: source.em.fork(), store: new LocalDiskStore(fromUploads) },
      { em: target.orm.em.fork(), store: target.store },
    );
    process.stdout.write(
      `Moved ${report.users} users and ${report.files} files (${report.bytes} bytes; ${report.copiedFiles} copied in this run) ` +
        `to ${describeDatabase(config)}; every user and file verified.\n`,
    );
    return 0;
  } finally {
    await source.close();
    await target.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof CliError || error instanceof ConfigError || error instanceof MoveVerificationError;
    const message = known ? (error as Error).message : `Unexpected error: ${errorSummary(error)}`;
    process.stderr.write(`move-install: ${message}\n`);
    process.exit(error instanceof CliError ? 2 : 1);
  },
);
