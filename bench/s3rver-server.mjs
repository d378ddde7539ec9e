// The S3 server of the bench's PostgreSQL + S3 phase: s3rver (a devDependency, as in the
// tests) in a process of its own, so that its CPU is neither the bench client's nor counted
// against one contender: the service and the bare SDK upload to and download from this same one.
//   node bench/s3rver-server.mjs <dir>      (prints {"port":N} on stdout once listening)
import fs from 'node:fs';
import S3rver from 's3rver';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: s3rver-server.mjs <dir>\n');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => process.exit(0));
