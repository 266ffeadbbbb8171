import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { ApiKeyError, createApiKey, listApiKeys, revokeApiKey } from '@loupe/api-keys';
import { ConfigError, loadConfig } from '@loupe/config';
import { createAccounts, MembershipError, type Role } from '@loupe/accounts';
import { systemClock } from '@loupe/http';
import { revokeUserGrants } from '@loupe/oauth';
import { balance, consumerNames, creditStatus, CreditError, grantCredits, planOf, setPlan, upsertPlan, usageByConsumer } from '@loupe/credits';
import { newId, openDatabase, type Database } from '@loupe/db';
import { decodeExportCursor, exportLines } from '@loupe/ingest-api';
import { DEFAULT_OUTBOX_LIMIT, listOutbox } from '@loupe/mail';
import { createLocalStorage } from '@loupe/storage';
import { ThirdPartyServerError } from '@loupe/third-party-mcp';
import { LIFECYCLE_USAGE, lifecycleCommand, LifecycleUsageError, RetentionError } from './admin-lifecycle';
import { ERASURE_USAGE, erasureCommand, ErasureUsageError } from './admin-erasure';
import { thirdPartyCommand, ThirdPartyUsageError } from './admin-third-party';
import { NotFoundError, createProduct, createProject, createWorkspace, listWorkspaces } from '@loupe/workspaces';

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `Usage: npm run admin -- <command> [options]

  workspace create --name <name> [--owner <email>]
  workspace list
  product create   --workspace <id> --name <name> [--description <text>]
  project create   --workspace <id> --product <id> --name <name>
  key create       --workspace <id> --name <name> --permissions <list> [--product <id>]
                   permissions: comma-separated among api:read, api:write, mcp:read, mcp:write, mcp:thirdparty
                   (MCP permissions need --product, the key's default product)
  key list         --workspace <id>
  key revoke       --workspace <id> --key <key id>
  mail list        [--to <email>] [--limit <n>]
                   the local outbox, newest first (mail is stored there when SMTP_URL is not set)
  user list        [--workspace <id>]
  member add       --workspace <id> --email <email> [--role owner|admin|member]   (creates the account if needed)
  member remove    --workspace <id> --email <email>   (revokes their keys and applications in the workspace)
  credits grant    --workspace <id> --amount <n> [--reason <text>]
  credits show     --workspace <id> [--days <n>]
                   balance, plan, paused or not, and usage by API key and by application (default 30 days)
  plan set         --name <name> --included <credits per month> --overage yes|no
                   creates or changes a plan; overage yes: use past the credits is billed, no: MCP access pauses
  workspace plan   --workspace <id> --plan <name>|none
  workspace export --workspace <id> --out <file.ndjson> [--after <cursor>]
                   every source, signal, opportunity and shaping note as NDJSON (GET /api/v1/export);
                   a file without its last "end" line was cut short: --after the cursor of its last line
  workspace local-storage --workspace <id> --value on|off
                   on: the workspace keeps its data locally and every MCP tool answers "not available"
  third-party add  --workspace <id> --name <name> --url <https url> [--header "Authorization: Bearer …"]
  third-party list --workspace <id>
  third-party remove --workspace <id> --id <server id>
                   MCP servers whose tools API keys with mcp:thirdparty see, as <name>__<tool>
${LIFECYCLE_USAGE}
${ERASURE_USAGE}

Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (default .data), running or not.`;

const OPTIONS = {
  name: { type: 'string' },
  owner: { type: 'string' },
  description: { type: 'string' },
  workspace: { type: 'string' },
  product: { type: 'string' },
  permissions: { type: 'string' },
  key: { type: 'string' },
  to: { type: 'string' },
  limit: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  days: { type: 'string' },
  included: { type: 'string' },
  overage: { type: 'string' },
  plan: { type: 'string' },
  value: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string' },
  id: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  out: { type: 'string' },
  after: { type: 'string' },
  participant: { type: 'string' },
  run: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'use-name': { type: 'string', multiple: true },
  lifted: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

function need(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`Missing --${name}`);
  return v.trim();
}

function positiveInt(values: Values, name: keyof Values, fallback: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--${name} must be a whole number from 1 to 1000`);
  return n;
}

function wholeNumber(values: Values, name: keyof Values, min: number, max: number): number {
  const v = need(values, name);
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** The accounts rules for the CLI (no mail is sent from here). */
function accountsOf(database: Database) {
  return createAccounts({ pool: database.pool, clock: systemClock, codeSecret: 'unused-by-the-cli', mailer: { send: async () => {} } });
}

function decodeCursorOrUsage(cursor: string) {
  try {
    return decodeExportCursor(cursor);
  } catch (error) {
    throw new UsageError(`--after: ${(error as Error).message}`);
  }
}

/** The server an SMTP URL names, without its credentials. */
function smtpServer(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'SMTP_URL';
  }
}

/** Runs one admin command; returns the lines to print. */
export async function runAdmin(
  argv: string[], database: Database, servicePrefix: string, settings: { smtpUrl?: string | undefined; fetchAllowLoopback?: boolean; dataDir?: string } = {},
): Promise<string[]> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Values;
  const [noun, verb, ...rest] = parsed.positionals;
  if (rest.length) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])}`);
  const { db } = database;
  switch (`${noun ?? ''} ${verb ?? ''}`) {
    case 'workspace create': {
      const ws = await createWorkspace(db, { name: need(values, 'name'), ...(values.owner ? { ownerEmail: values.owner } : {}) });
      return [`Created workspace ${ws.id} (${ws.name})`];
    }
    case 'workspace list': {
      const all = await listWorkspaces(db);
      if (!all.length) return ['No workspaces'];
      return all.flatMap((w) => [
        `${w.id}  ${w.name}`,
        ...w.products.flatMap((p) => [`  product ${p.id}  ${p.name}`, ...p.projects.map((j) => `    project ${j.id}  ${j.name}`)]),
      ]);
    }
    case 'product create': {
      const p = await createProduct(db, need(values, 'workspace'), {
        name: need(values, 'name'), ...(values.description ? { description: values.description } : {}),
      });
      return [`Created product ${p.id} (${p.name})`];
    }
    case 'project create': {
      const p = await createProject(db, need(values, 'workspace'), need(values, 'product'), { name: need(values, 'name') });
      return [`Created project ${p.id} (${p.name})`];
    }
    case 'key create': {
      const { key, apiKey } = await createApiKey(db, {
        workspaceId: need(values, 'workspace'),
        name: need(values, 'name'),
        permissions: need(values, 'permissions').split(/[\s,]+/).filter(Boolean),
        defaultProductId: values.product,
        servicePrefix,
      });
      return [
        `Created API key ${apiKey.id} (${apiKey.name}) with ${apiKey.permissions.join(', ')}`,
        'The key is shown once; store it now:',
        key,
      ];
    }
    case 'key list': {
      const keys = await listApiKeys(db, need(values, 'workspace'));
      if (!keys.length) return ['No API keys'];
      return keys.map((k) =>
        [
          k.id, `${k.displayPrefix}…`, k.name, k.permissions.join(','),
          k.defaultProductId ? `product=${k.defaultProductId}` : 'no default product',
          `created ${k.createdAt.toISOString()}`,
          k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used',
          k.revokedAt ? `REVOKED ${k.revokedAt.toISOString()}` : 'active',
        ].join('  '),
      );
    }
    case 'key revoke': {
      const keyId = need(values, 'key');
      await revokeApiKey(db, need(values, 'workspace'), keyId);
      return [`Revoked API key ${keyId}`];
    }
    case 'mail list': {
      const to = values.to?.trim() || undefined;
      const messages = await listOutbox(database.pool, { to, limit: positiveInt(values, 'limit', DEFAULT_OUTBOX_LIMIT) });
      const lines: string[] = [];
      if (settings.smtpUrl) {
        lines.push(
          `Note: SMTP_URL is set, so mail is sent through ${smtpServer(settings.smtpUrl)} and not stored here;`,
          'the local outbox only holds mail from when SMTP_URL was unset.',
          '',
        );
      }
      if (!messages.length) return [...lines, to ? `The local outbox has no mail to ${to}` : 'The local outbox is empty'];
      for (const m of messages) {
        lines.push(`${m.createdAt.toISOString()}  to ${m.to}  ${m.subject}  [${m.kind}]`);
        if (m.replyTo) lines.push(`    Reply-To: ${m.replyTo}`);
        lines.push(...m.text.split(/\r?\n/).map((line) => (line ? `    ${line}` : '')), '');
      }
      return lines;
    }
    case 'user list': {
      const { rows } = await database.pool.query<{ id: string; email: string; created_at: Date; workspaces: string | null }>(
        `SELECT u.id, u.email, u.created_at, string_agg(w.name || ' (' || m.role || ')', ', ' ORDER BY w.name) AS workspaces
           FROM users u LEFT JOIN memberships m ON m.user_id = u.id LEFT JOIN workspaces w ON w.id = m.workspace_id
          WHERE $1::text IS NULL OR u.id IN (SELECT user_id FROM memberships WHERE workspace_id = $1)
          GROUP BY u.id ORDER BY u.email`,
        [values.workspace ?? null],
      );
      if (!rows.length) return ['No users'];
      return rows.map((r) => `${r.id}  ${r.email}  since ${r.created_at.toISOString().slice(0, 10)}  ${r.workspaces ?? 'no workspace'}`);
    }
    case 'member add': {
      const workspaceId = need(values, 'workspace');
      const role = (values.role ?? 'member') as Role;
      const accounts = accountsOf(database);
      const { created } = await accounts.addMember(workspaceId, need(values, 'email'), role);
      return [`${created ? 'Created the account of' : 'Added'} ${need(values, 'email').toLowerCase()} as ${role} of ${workspaceId}`];
    }
    case 'member remove': {
      const workspaceId = need(values, 'workspace');
      const accounts = accountsOf(database);
      const user = await accounts.userByEmail(need(values, 'email'));
      if (!user) throw new MembershipError(`No account with the email ${need(values, 'email')}`);
      const { keysRevoked, invitationsCancelled } = await accounts.removeMember(workspaceId, null, user.id);
      const grants = await revokeUserGrants(database.pool, user.id, systemClock, workspaceId);
      return [`Removed ${user.email} from ${workspaceId}: ${keysRevoked} API key(s) revoked, ${invitationsCancelled} pending invitation(s) cancelled, ${grants} application(s) disconnected`];
    }
    case 'credits grant': {
      const workspaceId = need(values, 'workspace');
      const amount = wholeNumber(values, 'amount', 1, 100_000_000);
      await grantCredits(database.pool, workspaceId, amount, `admin:${newId('grant')}`, values.reason?.trim() || 'granted by an administrator');
      return [`Granted ${amount} credits to ${workspaceId}; balance ${await balance(database.pool, workspaceId)}`];
    }
    case 'credits show': {
      const workspaceId = need(values, 'workspace');
      const days = values.days === undefined ? 30 : wholeNumber(values, 'days', 1, 3650);
      const status = await creditStatus(database.pool, workspaceId);
      const plan = await planOf(database.pool, status.planId);
      const lines = [
        `Workspace ${workspaceId}: balance ${status.balance} credits`,
        plan ? `Plan ${plan.name}: ${plan.includedCredits} credits a month, use beyond them ${plan.overageAllowed ? 'billed as overage' : 'paused'}` : 'No plan',
        status.paused ? 'MCP access is PAUSED (no credits and no plan that allows overage); skills tools still work' : 'MCP access is open',
        '', `Usage in the last ${days} days:`,
      ];
      const usage = await usageByConsumer(database.pool, workspaceId, new Date(Date.now() - days * 86_400_000));
      if (!usage.length) return [...lines, '  none'];
      const names = await consumerNames(database.pool, workspaceId);
      for (const u of usage) {
        const who = u.consumer === 'records' ? 'processed records and added sources' : `${u.consumer === 'api_key' ? 'API key' : 'application'} ${names.get(u.id!) ?? u.id}`;
        lines.push(`  ${who}: ${u.credits} credits, ${u.calls} charges${u.overage ? `, ${u.overage} overage` : ''}`);
      }
      return lines;
    }
    case 'plan set': {
      const overage = need(values, 'overage');
      if (!['yes', 'no'].includes(overage)) throw new UsageError('--overage must be yes or no');
      const name = need(values, 'name');
      await upsertPlan(database.pool, { name, includedCredits: wholeNumber(values, 'included', 0, 100_000_000), overageAllowed: overage === 'yes' });
      return [`Plan ${name} saved`];
    }
    case 'workspace plan': {
      const workspaceId = need(values, 'workspace');
      const plan = need(values, 'plan');
      await setPlan(database.pool, workspaceId, plan === 'none' ? null : plan);
      return [plan === 'none' ? `Workspace ${workspaceId} has no plan now` : `Workspace ${workspaceId} is on plan ${plan}`];
    }
    case 'workspace export': {
      const workspaceId = need(values, 'workspace');
      const file = need(values, 'out');
      const from = values.after ? decodeCursorOrUsage(values.after) : undefined;
      const out = createWriteStream(file, { flags: from ? 'a' : 'w' });
      let last = '';
      try {
        for await (const line of exportLines(database.pool, workspaceId, from)) {
          last = line;
          if (!out.write(`${line}\n`)) await once(out, 'drain');
        }
      } finally {
        out.end();
        await once(out, 'close');
      }
      const { counts } = JSON.parse(last) as { counts: Record<string, number> };
      return [`${from ? 'Appended' : 'Wrote'} ${counts.source} sources, ${counts.signal} signals, ${counts.opportunity} opportunities and ${counts.shaping_note} shaping notes to ${file}`];
    }
    case 'workspace local-storage': {
      const workspaceId = need(values, 'workspace');
      const value = need(values, 'value');
      if (!['on', 'off'].includes(value)) throw new UsageError('--value must be on or off');
      const { rowCount } = await database.pool.query('UPDATE workspaces SET local_data_storage = $2 WHERE id = $1', [workspaceId, value === 'on']);
      if (!rowCount) throw new NotFoundError(`Workspace ${workspaceId} not found`);
      return [value === 'on' ? `Workspace ${workspaceId} keeps its data locally: MCP tools answer "Tool is not available for this workspace"` : `Workspace ${workspaceId} uses Loupe's storage`];
    }
    case 'source delete':
    case 'record delete':
    case 'workspace retention':
      return lifecycleCommand(`${noun} ${verb}` as 'source delete', values as Record<string, string | undefined>, { pool: database.pool, storage: createLocalStorage(settings.dataDir ?? '.data') });
    case 'person erase':
    case 'person confirm':
    case 'person erasures':
    case 'suppression list':
    case 'suppression lift':
      return erasureCommand(`${noun} ${verb}` as 'person erase', values as Record<string, string | string[] | boolean | undefined>, {
        pool: database.pool, databaseUrl: database.url, storage: createLocalStorage(settings.dataDir ?? '.data'),
      });
    case 'third-party add':
    case 'third-party list':
    case 'third-party remove':
      return thirdPartyCommand(verb!, values as Record<string, string | undefined>, { pool: database.pool, allowLoopback: settings.fetchAllowLoopback ?? false });
    default:
      throw new UsageError(noun ? `Unknown command "${[noun, verb].filter(Boolean).join(' ')}"` : 'No command given');
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let database: Database | undefined;
  try {
    const config = loadConfig();
    database = await openDatabase({
      databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedPgPort: config.embeddedPgPort, poolSize: 2, whenRunning: 'share',
    });
    for (const line of await runAdmin(argv, database, config.servicePrefix, { smtpUrl: config.smtpUrl, fetchAllowLoopback: config.fetchAllowLoopback, dataDir: config.dataDir })) console.log(line);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ThirdPartyUsageError || error instanceof LifecycleUsageError || error instanceof ErasureUsageError) {
      console.error(`Error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ApiKeyError || error instanceof NotFoundError || error instanceof ConfigError || error instanceof CreditError || error instanceof MembershipError || error instanceof ThirdPartyServerError || error instanceof RetentionError || /permission/i.test((error as Error).message)) {
      console.error(`Error: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  } finally {
    await database?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
