import { ROLES } from '@loupe/accounts';
import { API_KEY_PERMISSIONS } from '@loupe/api-keys';
import { MIN_PARTICIPANT_ID_LENGTH } from '@loupe/erasure';
import { MAX_DELETE_IDS, RETENTION_MAX_DAYS } from '@loupe/lifecycle';
import { DEFAULT_OUTBOX_LIMIT } from '@loupe/mail';
import type { CliSpec, OptionSpec } from './spec';

// The commands of `npm run admin`: the parser, their --help and docs/reference/cli.md come from here; what each
// does is in admin.ts (and admin-lifecycle.ts, admin-erasure.ts, admin-third-party.ts).

const workspace: OptionSpec = { name: 'workspace', value: 'id', description: 'the workspace', required: true };
const id = (what: string): OptionSpec => ({ name: 'id', value: 'id', description: `the ${what}`, required: true });
const ON_OFF = ['on', 'off'] as const;

export const ADMIN_CLI = {
  invocation: 'npm run admin --',
  summary: 'Administers Loupe directly in its database: workspaces, API keys, members, credits, deletion and erasure.',
  footer: 'Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (default .data), running or not.',
  groups: {
    workspace: 'workspaces: create, list, plan, export, local storage, retention',
    product: 'products of a workspace',
    project: 'projects of a product',
    key: 'API keys of a workspace',
    mail: 'the local outbox',
    user: 'user accounts',
    member: 'members of a workspace',
    credits: 'credits of a workspace',
    plan: 'plans (included credits, overage)',
    'third-party': 'third-party MCP servers of a workspace',
    source: 'sources of a workspace',
    record: 'records of a workspace',
    person: 'erasing a person from a workspace',
    suppression: 'suppressions of erased people',
    embeddings: 'the embedding model of sources and signals',
  },
  commands: [
    {
      name: 'workspace create',
      summary: 'Create a workspace',
      options: [
        { name: 'name', value: 'name', description: 'its name', required: true },
        { name: 'owner', value: 'email', description: 'the email of its owner (the account is created if needed)' },
      ],
    },
    { name: 'workspace list', summary: 'List the workspaces with their products and projects', options: [] },
    {
      name: 'product create',
      summary: 'Create a product in a workspace',
      options: [workspace, { name: 'name', value: 'name', description: 'its name', required: true }, { name: 'description', value: 'text', description: 'what it is' }],
    },
    {
      name: 'project create',
      summary: 'Create a project in a product',
      options: [
        workspace,
        { name: 'product', value: 'id', description: 'the product', required: true },
        { name: 'name', value: 'name', description: 'its name', required: true },
      ],
    },
    {
      name: 'key create',
      summary: 'Create an API key; it is printed once',
      options: [
        workspace,
        { name: 'name', value: 'name', description: 'a name to tell it apart', required: true },
        { name: 'permissions', value: 'list', description: `comma-separated among ${API_KEY_PERMISSIONS.join(', ')}`, required: true },
        { name: 'product', value: 'id', description: 'its default product (needed by the MCP permissions)' },
      ],
      help: 'Only the key\'s SHA-256 and a display prefix are stored: store the key when it is printed.',
    },
    { name: 'key list', summary: 'List the API keys of a workspace, by display prefix', options: [workspace] },
    { name: 'key revoke', summary: 'Revoke an API key', options: [workspace, id('API key (key_…)')] },
    {
      name: 'mail list',
      summary: 'Show the local outbox, newest first',
      options: [
        { name: 'to', value: 'email', description: 'only the mail to this address' },
        { name: 'limit', value: 'n', description: `how many messages, 1 to 1000 (default ${DEFAULT_OUTBOX_LIMIT})` },
      ],
      help: 'Mail is stored in the local outbox when SMTP_URL is not set.',
    },
    { name: 'user list', summary: 'List the user accounts and their workspaces', options: [{ name: 'workspace', value: 'id', description: 'only the members of this workspace' }] },
    {
      name: 'member add',
      summary: 'Add a member to a workspace (creating the account if needed)',
      options: [
        workspace,
        { name: 'email', value: 'email', description: 'their email', required: true },
        { name: 'role', value: 'role', description: 'their role', choices: ROLES, default: 'member' },
      ],
    },
    {
      name: 'member remove',
      summary: 'Remove a member from a workspace',
      options: [workspace, { name: 'email', value: 'email', description: 'their email', required: true }],
      help: 'Their API keys and applications in the workspace are revoked and their pending invitations cancelled.',
    },
    {
      name: 'credits grant',
      summary: 'Grant credits to a workspace',
      options: [
        workspace,
        { name: 'amount', value: 'n', description: 'how many, 1 to 100,000,000', required: true },
        { name: 'reason', value: 'text', description: 'why (default "granted by an administrator")' },
      ],
    },
    {
      name: 'credits show',
      summary: 'Show a workspace\'s balance, plan and usage',
      options: [workspace, { name: 'days', value: 'n', description: 'the usage of the last n days, 1 to 3650 (default 30)' }],
      help: 'Balance, plan, whether MCP access is paused, and usage by API key and by application.',
    },
    {
      name: 'plan set',
      summary: 'Create or change a plan',
      options: [
        { name: 'name', value: 'name', description: 'the plan', required: true },
        { name: 'included', value: 'n', description: 'credits included each month, 0 to 100,000,000', required: true },
        { name: 'overage', value: 'on|off', description: 'on: use past the included credits is billed; off: MCP access pauses', required: true, choices: ON_OFF },
      ],
    },
    {
      name: 'workspace plan',
      summary: 'Put a workspace on a plan, or on none',
      options: [workspace, { name: 'plan', value: 'name', description: 'the plan\'s name, or none', required: true }],
    },
    {
      name: 'workspace export',
      summary: 'Export a workspace\'s evidence as NDJSON',
      options: [
        workspace,
        { name: 'out', value: 'file', description: 'the file to write (appended to with --after)', required: true },
        { name: 'after', value: 'cursor', description: 'carry on after this line\'s cursor' },
      ],
      help: [
        'Every source, signal, opportunity and shaping note, one JSON line each, as GET /api/v1/export gives them.',
        'A file without its last "end" line was cut short: run again with --after the cursor of its last line.',
        'On a terminal, the lines written so far are shown on stderr.',
      ].join('\n'),
    },
    {
      name: 'workspace local-storage',
      summary: 'Keep a workspace\'s data locally, or not',
      options: [workspace, { name: 'value', value: 'on|off', description: 'on: every MCP tool answers "not available"', required: true, choices: ON_OFF }],
    },
    {
      name: 'third-party add',
      summary: 'Connect a third-party MCP server',
      options: [
        workspace,
        { name: 'name', value: 'name', description: 'its name (its tools are prefixed with a slug of it)', required: true },
        { name: 'url', value: 'url', description: 'its https URL', required: true },
        { name: 'header', value: 'header', description: 'a header to send, as "Name: value" (stored encrypted, never shown)' },
      ],
      help: 'Its tools are offered as <slug>__<tool> to API keys with mcp:thirdparty.',
    },
    { name: 'third-party list', summary: 'List the third-party MCP servers of a workspace', options: [workspace] },
    { name: 'third-party remove', summary: 'Disconnect a third-party MCP server', options: [workspace, id('third-party server (tps_…)')] },
    {
      name: 'source delete',
      summary: 'Delete sources, with the records they were built from',
      options: [workspace, { ...id(`sources, comma-separated (at most ${MAX_DELETE_IDS})`), value: 'ids' }],
      help: 'With their segments, attachments and files, vectors, signals and share of opportunities; credits stay charged.',
    },
    {
      name: 'record delete',
      summary: 'Delete records, with the sources built from them',
      options: [workspace, { ...id(`records, comma-separated (at most ${MAX_DELETE_IDS})`), value: 'ids' }],
      help: 'With their segments, attachments and files, vectors, signals and share of opportunities; credits stay charged.',
    },
    {
      name: 'workspace retention',
      summary: 'Show or set how long a workspace keeps its sources',
      options: [workspace, { name: 'days', value: 'days', description: `1 to ${RETENTION_MAX_DAYS}, or off to keep them until deleted; without it, shows the setting` }],
      help: 'The worker deletes the sources that occurred longer ago, hourly, in slices.',
    },
    {
      name: 'person erase',
      summary: 'Erase a person from a workspace and suppress them',
      options: [
        workspace,
        { name: 'email', value: 'email', description: 'their email' },
        { name: 'participant', value: 'id', description: `their participant id (at least ${MIN_PARTICIPANT_ID_LENGTH} characters)` },
        { name: 'dry-run', description: 'change nothing: show what would be erased, to confirm with person confirm' },
        { name: 'run', description: 'erase here and now, showing the progress on a terminal, instead of leaving it to the worker' },
      ],
      help: [
        'Give --email, --participant or both. Records, sources, signals, shaping notes and attachments naming them are',
        'erased (see docs/ingest/erasure.md). A dry run also lists the names found beside the email or id.',
      ].join('\n'),
    },
    {
      name: 'person confirm',
      summary: 'Erase as a dry run showed',
      options: [
        workspace,
        id('erasure (era_…) of the dry run'),
        { name: 'use-name', value: 'name', description: 'also look for this name: one the preview offered, not shared', repeatable: true },
        { name: 'run', description: 'erase here and now, showing the progress on a terminal, instead of leaving it to the worker' },
      ],
    },
    {
      name: 'person erasures',
      summary: 'List a workspace\'s erasure requests, or show one',
      options: [workspace, { name: 'id', value: 'id', description: 'one request (era_…), with the preview of a dry run' }],
      help: 'The audit: who asked, when, and the progress, newest first.',
    },
    {
      name: 'suppression list',
      summary: 'List the people suppressed in a workspace',
      options: [workspace, { name: 'lifted', description: 'include the lifted suppressions' }],
    },
    {
      name: 'suppression lift',
      summary: 'Lift a suppression',
      options: [workspace, id('suppression (sup_…)')],
      help: 'Records naming a suppressed person are refused until the suppression is lifted.',
    },
    {
      name: 'embeddings status',
      summary: 'Show the embedding model and how many sources and signals are embedded with it',
      options: [],
      help: [
        'The model configured (EMBEDDINGS_URL and EMBEDDINGS_MODEL, or the built-in word vectors), its dimensions, and per kind',
        'how many rows are embedded with it and how many are left: the worker re-embeds them in the background after a change.',
      ].join('\n'),
    },
  ],
} as const satisfies CliSpec;

export type AdminCommand = (typeof ADMIN_CLI)['commands'][number]['name'];
