import { RECORD_TYPES } from '@loupe/records';
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
  groups: { batches: 'ingestion batches', companies: 'companies of the workspace, from a CRM export', people: 'people of the workspace, from a CRM export' },
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
      name: 'import',
      summary: 'Import a CSV, NDJSON or JSON-array export as records, column by column through a mapping file',
      arguments: [{ name: 'file', description: 'a .csv file with a header row, NDJSON, or a JSON array of objects' }],
      options: [
        { name: 'mapping', value: 'mapping.json', description: 'which column (or constant) fills each record field', required: true },
        { name: 'dry-run', description: 'map and check the first 20 rows, print the records and each row\'s errors, send nothing' },
        { name: 'product', value: 'id', description: 'the product of every record (prod_…); overrides the mapping\'s product_id' },
        { name: 'project', value: 'id', description: 'a project of every record (proj_…); overrides the mapping\'s project_ids', repeatable: true },
        { name: 'type', value: 'type', description: 'the _type of every record; overrides the mapping\'s type', choices: RECORD_TYPES },
        ...connection,
      ],
      help: [
        'The file is streamed, never held in memory. Each row is mapped and checked against the record schema the',
        'API applies; a row that fails is refused with its line number (or position in a JSON array) and the rest is',
        'sent in requests of at most 1,000 records, each with an Idempotency-Key from its content: importing the',
        'same file again stores nothing twice. Progress (rows read, sent, refused) goes to stderr at most once a',
        'second. Ctrl-C stops after the request in flight (exit code 130); running the command again finishes.',
        'Exit code 0 when every row was stored, 1 when some were refused, 2 for a wrong command line or mapping.',
        'The mapping format is in docs/ingest/file-import.md.',
      ].join('\n'),
    },
    {
      name: 'batches watch',
      summary: 'Follow a batch until it is COMPLETE or FAILED',
      arguments: [{ name: 'id', description: 'the batch (bat_…)' }],
      options: connection,
      help: 'Its status, accepted records, credits and attachment downloads are shown on stderr as they change.',
    },
    {
      name: 'companies upload',
      summary: 'Upsert every company of a CRM export (CSV, NDJSON or a JSON array) by external_id',
      arguments: [{ name: 'file', description: 'a .csv file with a header row, NDJSON, a JSON array or {"companies": [...]}' }],
      options: connection,
      help: [
        'CSV columns are named like the fields: external_id, name, domains (several separated by ";" or ","), arr',
        '(a number, "." for decimals), plan, segment, stage, renewal_date (YYYY-MM-DD), and attributes.<name> for',
        'each attribute (sent as text); an empty cell leaves the field out, other columns are ignored (named on',
        'stderr). Sent in requests of at most 1,000, each an upsert: running the same file again stores the same.',
        'Rejected rows go to <file>.rejected.ndjson with their line (or position in a JSON array) and the reason.',
      ].join('\n'),
    },
    {
      name: 'people upload',
      summary: 'Upsert every person of a CRM export (CSV, NDJSON or a JSON array) by external_id',
      arguments: [{ name: 'file', description: 'a .csv file with a header row, NDJSON, a JSON array or {"people": [...]}' }],
      options: connection,
      help: [
        'CSV columns: external_id, email, name, company_external_id (a company sent before) and attributes.<name>;',
        'otherwise as `companies upload`. Upload the companies first, so that every person\'s company is known.',
      ].join('\n'),
    },
  ],
} as const satisfies CliSpec;

export type LoupeCommand = (typeof LOUPE_CLI)['commands'][number]['name'];
