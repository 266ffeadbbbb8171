import type { CliSpec, OptionSpec } from './spec';

// The commands of `npm run loupe`: the parser, their --help and docs/reference/cli.md come from here; what each
// does is in loupe.ts.

export const DEFAULT_LOUPE_URL = 'http://localhost:8080';

const connection: readonly OptionSpec[] = [
  { name: 'url', value: 'url', description: `the Loupe to talk to (default LOUPE_URL, else ${DEFAULT_LOUPE_URL})` },
  { name: 'key', value: 'api-key', description: 'the API key (default LOUPE_API_KEY); never printed' },
];

export const LOUPE_CLI = {
  invocation: 'npm run loupe --',
  summary: 'A client of the Loupe ingestion API, over HTTP with an API key.',
  groups: { batches: 'ingestion batches' },
  commands: [
    {
      name: 'upload',
      summary: 'Send every record of a file, any size, with a progress bar',
      arguments: [{ name: 'file', description: 'a JSON array, {"records": [...]} or NDJSON file' }],
      options: connection,
      help: [
        'The file is read as a stream and sent in requests of at most 1,000 records and 5 MB. After each answered',
        'request the position is saved in <file>.loupe-upload.json: Ctrl-C stops after the request in flight, and',
        'the same command resumes there (nothing is sent twice). Rejected records go to <file>.rejected.ndjson',
        'with their index in the file and the reason.',
      ].join('\n'),
    },
    {
      name: 'batches watch',
      summary: 'Follow a batch until it is COMPLETE or FAILED',
      arguments: [{ name: 'id', description: 'the batch (bat_…)' }],
      options: connection,
      help: 'Its status, accepted records, credits and attachment downloads are shown on stderr as they change.',
    },
  ],
} as const satisfies CliSpec;

export type LoupeCommand = (typeof LOUPE_CLI)['commands'][number]['name'];
