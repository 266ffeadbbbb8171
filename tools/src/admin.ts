import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
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
import { lifecycleCommand, LifecycleUsageError, RetentionError } from './admin-lifecycle';
import { erasureCommand, ErasureUsageError } from './admin-erasure';
import { thirdPartyCommand, ThirdPartyUsageError } from './admin-third-party';
import { embeddingsStatus } from './admin-embeddings';
import { ADMIN_CLI, type AdminCommand } from './cli/admin-commands';
import { parseCommandLine, USAGE_EXIT_CODE, type OptionValues } from './cli/program';
import { noProgress, terminalProgress, type Progress } from './cli/progress';
import { helpPointer } from './cli/spec';
import { NotFoundError, createProduct, createProject, createWorkspace, listWorkspaces } from '@loupe/workspaces';

export class UsageError extends Error {
  override name = 'UsageError';
}

type Values = OptionValues;

/** How the command runs here: mail settings, loopback fetches, where files are, and a progress line for long commands. */
export interface AdminSettings {
  smtpUrl?: string | undefined;
  fetchAllowLoopback?: boolean;
  dataDir?: string;
  progress?: Progress;
  /** The embedding provider configured (EMBEDDINGS_URL); undefined: the built-in word vectors. */
  embeddings?: { url: string; model: string } | undefined;
}

function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`Missing --${name}`);
  return v.trim();
}

/** An option that may be left out: its value trimmed, or undefined when not given or empty. */
function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function positiveInt(values: Values, name: string, fallback: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--${name} must be a whole number from 1 to 1000`);
  return n;
}

function wholeNumber(values: Values, name: string, min: number, max: number): number {
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

/** The lines of an export written so far, by kind, as a line of progress. */
class ExportTally {
  private readonly byKind = new Map<string, number>();
  private total = 0;

  add(line: string): string {
    const kind = /^\{"kind":"(\w+)"/.exec(line)?.[1] ?? 'other';
    if (kind !== 'end') {
      this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
      this.total++;
    }
    const n = (x: number) => x.toLocaleString('en-US');
    return `${n(this.total)} line${this.total === 1 ? '' : 's'} written (${[...this.byKind].map(([k, c]) => `${k} ${n(c)}`).join(', ')})`;
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

/**
 * Runs one admin command line; returns the lines to print (the help, when asked for). A command line given
 * wrongly throws a UsageError with the message commander printed (the error and where to find the help).
 */
export async function runAdmin(argv: string[], database: Database, servicePrefix: string, settings: AdminSettings = {}): Promise<string[]> {
  const parsed = parseCommandLine(ADMIN_CLI, argv);
  if (parsed.kind === 'exit') {
    if (parsed.code === 0) return parsed.out.trimEnd().split('\n');
    throw new UsageError(parsed.err.trimEnd());
  }
  return runAdminCommand(parsed.command, parsed.options, database, servicePrefix, settings);
}

/** Runs one admin command, its options parsed; returns the lines to print. */
export async function runAdminCommand(
  command: AdminCommand, values: Values, database: Database, servicePrefix: string, settings: AdminSettings = {},
): Promise<string[]> {
  const { db } = database;
  const progress = settings.progress ?? noProgress;
  switch (command) {
    case 'workspace create': {
      const owner = optional(values, 'owner');
      const ws = await createWorkspace(db, { name: need(values, 'name'), ...(owner ? { ownerEmail: owner } : {}) });
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
      const description = optional(values, 'description');
      const p = await createProduct(db, need(values, 'workspace'), {
        name: need(values, 'name'), ...(description ? { description } : {}),
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
        defaultProductId: optional(values, 'product'),
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
      const keyId = need(values, 'id');
      await revokeApiKey(db, need(values, 'workspace'), keyId);
      return [`Revoked API key ${keyId}`];
    }
    case 'mail list': {
      const to = optional(values, 'to');
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
        [optional(values, 'workspace') ?? null],
      );
      if (!rows.length) return ['No users'];
      return rows.map((r) => `${r.id}  ${r.email}  since ${r.created_at.toISOString().slice(0, 10)}  ${r.workspaces ?? 'no workspace'}`);
    }
    case 'member add': {
      const workspaceId = need(values, 'workspace');
      const role = need(values, 'role') as Role;
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
      await grantCredits(database.pool, workspaceId, amount, `admin:${newId('grant')}`, optional(values, 'reason') ?? 'granted by an administrator');
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
      const name = need(values, 'name');
      await upsertPlan(database.pool, { name, includedCredits: wholeNumber(values, 'included', 0, 100_000_000), overageAllowed: overage === 'on' });
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
      const after = optional(values, 'after');
      const from = after ? decodeCursorOrUsage(after) : undefined;
      const out = createWriteStream(file, { flags: from ? 'a' : 'w' });
      let last = '';
      const written = new ExportTally();
      try {
        for await (const line of exportLines(database.pool, workspaceId, from)) {
          last = line;
          if (!out.write(`${line}\n`)) await once(out, 'drain');
          progress.update(`${file}: ${written.add(line)}`);
        }
      } finally {
        progress.done();
        out.end();
        await once(out, 'close');
      }
      const { counts } = JSON.parse(last) as { counts: Record<string, number> };
      return [`${from ? 'Appended' : 'Wrote'} ${counts.source} sources, ${counts.signal} signals, ${counts.opportunity} opportunities, ${counts.shaping_note} shaping notes, ${counts.company} companies and ${counts.person} people to ${file}`];
    }
    case 'workspace local-storage': {
      const workspaceId = need(values, 'workspace');
      const value = need(values, 'value');
      const { rowCount } = await database.pool.query('UPDATE workspaces SET local_data_storage = $2 WHERE id = $1', [workspaceId, value === 'on']);
      if (!rowCount) throw new NotFoundError(`Workspace ${workspaceId} not found`);
      return [value === 'on' ? `Workspace ${workspaceId} keeps its data locally: MCP tools answer "Tool is not available for this workspace"` : `Workspace ${workspaceId} uses Loupe's storage`];
    }
    case 'source delete':
    case 'record delete':
    case 'workspace retention':
      return lifecycleCommand(command, values as Record<string, string | undefined>, { pool: database.pool, storage: createLocalStorage(settings.dataDir ?? '.data') });
    case 'person erase':
    case 'person confirm':
    case 'person erasures':
    case 'suppression list':
    case 'suppression lift':
      return erasureCommand(command, values, {
        pool: database.pool, databaseUrl: database.url, storage: createLocalStorage(settings.dataDir ?? '.data'), progress,
      });
    case 'third-party add':
    case 'third-party list':
    case 'third-party remove':
      return thirdPartyCommand(command.split(' ')[1]!, values as Record<string, string | undefined>, { pool: database.pool, allowLoopback: settings.fetchAllowLoopback ?? false });
    case 'embeddings status':
      return embeddingsStatus(database.pool, settings.embeddings);
  }
}

const isUsageError = (error: unknown): error is Error =>
  error instanceof UsageError || error instanceof ThirdPartyUsageError || error instanceof LifecycleUsageError || error instanceof ErasureUsageError;

const isRefusal = (error: unknown): error is Error =>
  error instanceof ApiKeyError || error instanceof NotFoundError || error instanceof ConfigError || error instanceof CreditError || error instanceof MembershipError ||
  error instanceof ThirdPartyServerError || error instanceof RetentionError || /permission/i.test((error as Error).message);

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(ADMIN_CLI, argv);
  if (parsed.kind === 'exit') {
    process.stdout.write(parsed.out);
    process.stderr.write(parsed.err);
    return parsed.code;
  }
  let database: Database | undefined;
  try {
    const config = loadConfig();
    database = await openDatabase({
      databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedPgPort: config.embeddedPgPort, poolSize: 2, whenRunning: 'share',
    });
    const settings = {
      smtpUrl: config.smtpUrl, fetchAllowLoopback: config.fetchAllowLoopback, dataDir: config.dataDir, progress: terminalProgress(process.stderr), embeddings: config.embeddings,
    };
    for (const line of await runAdminCommand(parsed.command, parsed.options, database, config.servicePrefix, settings)) console.log(line);
    return 0;
  } catch (error) {
    if (isUsageError(error)) {
      console.error(`error: ${error.message}\n${helpPointer(ADMIN_CLI, parsed.command)}`);
      return USAGE_EXIT_CODE;
    }
    if (isRefusal(error)) {
      console.error(`error: ${error.message}`);
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
