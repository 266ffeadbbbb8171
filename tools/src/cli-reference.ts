import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ADMIN_CLI } from './cli/admin-commands';
import { LOUPE_CLI } from './cli/loupe-commands';
import { cliReference, type ReferencedCli } from './cli/reference';

// `npm run docs:cli`: writes the CLI reference from the command definitions in tools/src/cli, the ones the parsers
// and their --help use. cli-reference.test.ts fails when the committed page differs from what this writes.

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const cliReferencePath = 'docs/reference/cli.md';

export const REFERENCED_CLIS: readonly ReferencedCli[] = [
  {
    spec: LOUPE_CLI,
    title: 'npm run loupe',
    about: 'over HTTP with an API key, like any client, from any machine that reaches the service. Use it to send records and follow batches; it can do only what its key may.',
  },
  {
    spec: ADMIN_CLI,
    title: 'npm run admin',
    about: 'straight to the database, with no key, on the server (a host that reaches `DATABASE_URL`, or beside `npm start` for the embedded cluster). Use it to administer: workspaces, API keys, members, credits and plans, deletion and erasure.',
  },
];

/** Writes docs/reference/cli.md under `root`; returns the path written. */
export async function writeCliReference(root = repoRoot): Promise<string> {
  await writeFile(path.join(root, cliReferencePath), cliReference(REFERENCED_CLIS));
  return cliReferencePath;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await writeCliReference();
  process.stdout.write(`wrote ${written} (${REFERENCED_CLIS.reduce((n, c) => n + c.spec.commands.length, 0)} commands)\n`);
}
