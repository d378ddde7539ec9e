// What every admin command shares: the database opened (and migrated) for one command, and a
// failure said in one line, never a stack trace.
import { ConfigError, describeDatabase, type Config } from '../server/config';
import { createServiceContext, type ServiceContext } from '../server/context';
import { createDeps, type Deps } from '../server/deps';
import { isAppError } from '../server/errors';

/** A failure the command explains itself: its message is the line the admin sees. */
export class CliError extends Error {}

/** Runs `command` with a service context on the configured database, closing it afterwards. */
export async function withServiceContext<T>(config: Config, command: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  let deps: Deps;
  try {
    deps = await createDeps(config, { logLevel: 'warn' });
  } catch (error) {
    throw new CliError(`Cannot open the database ${describeDatabase(config)}: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    return await command(createServiceContext(deps));
  } finally {
    await deps.close();
  }
}

/** The one line that says why a command failed. */
export function failureLine(error: unknown): string {
  if (error instanceof CliError || error instanceof ConfigError || isAppError(error)) return error.message;
  return `Unexpected error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
}
