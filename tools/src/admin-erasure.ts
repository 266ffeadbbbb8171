import {
  confirmErasure, ErasureInputError, ErasureStateError, getErasure, listErasures, listSuppressions, liftSuppression, parseErasureInput,
  requestErasure, runErasure, type ErasureView,
} from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import { noProgress, type Progress } from './cli/progress';

/** A command given wrongly (missing flag, malformed value); the message says what to give. */
export class ErasureUsageError extends Error {
  override name = 'ErasureUsageError';
}

type Flags = Record<string, string | string[] | boolean | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new ErasureUsageError(`Missing --${name}`);
  return v.trim();
}

const counts = (e: ErasureView) => Object.entries(e.counts).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(', ') || (e.status === 'previewed' ? 'nothing' : 'nothing yet');
const line = (e: ErasureView) =>
  `${e.id}  ${e.createdAt.toISOString()}  by ${e.requestedBy}  (${e.subjectKind === 'email' ? 'email' : 'participant id'})  ${e.status}${e.dryRun ? ' (dry run)' : ''}` +
  `${e.status === 'running' ? ` [${e.phase}]` : ''}  ${e.dryRun && e.status === 'previewed' ? `would erase: ${counts(e)}` : counts(e)}`;
const others = (n: number) => `${n} other participant${n === 1 ? '' : 's'}`;

/** A dry run's preview, as lines: what would go, examples, what was found beside the email or id, and how to confirm. */
function previewLines(e: ErasureView, workspaceId: string): string[] {
  const p = e.preview;
  if (!p) return e.dryRun && (e.status === 'queued' || e.status === 'running') ? ['The preview is being prepared: run this again in a moment.'] : [];
  const out = [`What would be erased: ${counts(e)}`];
  if (p.samples.length) {
    out.push('Examples:');
    for (const s of p.samples) out.push(`  ${s.kind} ${s.id}${s.field ? ` ${s.field}` : ''}`, `    before: ${s.before}`, `    after:  ${s.after ?? '(deleted)'}`);
  }
  if (p.identifiers.length) {
    out.push('Also identified by:');
    for (const i of p.identifiers) {
      out.push(`  ${i.kind === 'email' ? 'email' : 'participant id'} ${i.value}  ${i.shared ? `shared with ${others(i.sharedWith)}: not used` : 'erased and suppressed too'}`);
    }
  }
  out.push(p.names.length ? 'Names found beside them (looked for only when given with --use-name):' : 'No names found beside them.');
  for (const n of p.names) {
    out.push(`  ${JSON.stringify(n.name)}  ${n.shared ? `shared with ${others(n.sharedWith)}: never looked for` : `confirming it adds ${n.mentions ? `${n.mentions} more item${n.mentions === 1 ? '' : 's'}` : 'no more items'}`}`);
  }
  const offered = p.names.filter((n) => !n.shared).map((n) => ` --use-name ${JSON.stringify(n.name)}`).join('');
  out.push(`Confirm by ${p.expiresAt.toISOString()}: npm run admin -- person confirm --workspace ${workspaceId} --id ${e.id}${offered ? ` [${offered.trim()}]` : ''} [--run]`);
  return out;
}

function usageOf(error: unknown): never {
  if (error instanceof ErasureInputError || error instanceof ErasureStateError) {
    throw new ErasureUsageError(error.message.replace('"email" or "participant_id"', '--email or --participant').replace(/^participant_id/, '--participant')
      .replace(/^email/, '--email').replace(/^dry_run/, '--dry-run').replace(/^names\[\d+\]/, '--use-name'));
  }
  throw error;
}

/** A job queue for the command's lifetime. */
async function withBoss<T>(databaseUrl: string, fn: (boss: Boss) => Promise<T>): Promise<T> {
  const boss = createBoss({ connectionString: databaseUrl, supervise: false, max: 1 });
  await boss.start();
  try {
    await ensureQueues(boss);
    return await fn(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

/**
 * Runs an erasure here and now, slice after slice (the worker's job then finds it done), showing its phase and
 * counts on the progress line after each slice.
 */
async function runHere(deps: { pool: pg.Pool; boss: Boss; storage: Storage; progress?: Progress }, workspaceId: string, id: string): Promise<void> {
  const progress = deps.progress ?? noProgress;
  try {
    for (;;) {
      const { status } = await runErasure({ pool: deps.pool, boss: deps.boss, storage: deps.storage, clock: systemClock }, workspaceId, id, { maxSlices: 1 });
      if (status !== 'running') return;
      const now = await getErasure(deps.pool, workspaceId, id);
      if (now) progress.update(`Erasing ${id}: ${now.phase.replace(/_/g, ' ')} · ${counts(now)}`);
    }
  } finally {
    progress.done();
  }
}

/** `person erase`, `person confirm`, `person erasures`, `suppression list`, `suppression lift`: returns the lines to print. */
export async function erasureCommand(
  command: 'person erase' | 'person confirm' | 'person erasures' | 'suppression list' | 'suppression lift', flags: Flags,
  deps: { pool: pg.Pool; databaseUrl: string; storage: Storage; progress?: Progress },
): Promise<string[]> {
  const workspaceId = need(flags, 'workspace');
  const by = { label: 'admin CLI' };
  const run = (boss: Boss, id: string) => runHere({ ...deps, boss }, workspaceId, id);
  switch (command) {
    case 'person erase': {
      let input;
      try {
        input = parseErasureInput({ email: flags.email, participant_id: flags.participant, dry_run: flags['dry-run'] === true });
      } catch (error) {
        usageOf(error);
      }
      const { rows } = await deps.pool.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
      if (!rows.length) throw new ErasureUsageError(`Workspace ${workspaceId} not found`);
      const erasure = await withBoss(deps.databaseUrl, async (boss) => {
        const asked = await requestErasure(deps.pool, boss, { workspaceId, email: input.email, participantId: input.participantId, dryRun: input.dryRun, by, now: new Date() });
        // Here and now, slice after slice; the worker's job then finds it done.
        if (flags.run === true) await run(boss, asked.id);
        return asked;
      });
      const after = (await getErasure(deps.pool, workspaceId, erasure.id)) ?? erasure;
      if (input.dryRun) {
        return [line(after), ...(flags.run === true ? previewLines(after, workspaceId)
          : [`Dry run queued: the worker prepares the preview (npm run admin -- person erasures --workspace ${workspaceId} --id ${erasure.id} shows it). Nothing changes until it is confirmed.`])];
      }
      return [line(after), flags.run === true ? 'Erased. Records naming the person are refused until the suppression is lifted.' : 'Queued: the worker erases the person in the background (npm run admin -- person erasures to follow it).'];
    }
    case 'person confirm': {
      const id = need(flags, 'id');
      const raw = flags['use-name'];
      const names = (Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : []).map((n) => n.trim()).filter(Boolean);
      const confirmed = await withBoss(deps.databaseUrl, async (boss) => {
        let erasure;
        try {
          erasure = await confirmErasure(deps.pool, boss, { workspaceId, erasureId: id, names, by, now: new Date() });
        } catch (error) {
          usageOf(error);
        }
        if (!erasure) throw new ErasureUsageError(`Erasure ${id} not found in workspace ${workspaceId}`);
        if (flags.run === true) await run(boss, erasure.id);
        return erasure;
      });
      const after = (await getErasure(deps.pool, workspaceId, confirmed.id)) ?? confirmed;
      return [line(after), flags.run === true ? 'Erased. Records naming the person are refused until the suppression is lifted.' : 'Queued: the worker erases the person in the background (npm run admin -- person erasures to follow it).'];
    }
    case 'person erasures': {
      if (typeof flags.id === 'string') {
        const one = await getErasure(deps.pool, workspaceId, need(flags, 'id'));
        if (!one) throw new ErasureUsageError(`Erasure ${flags.id} not found in workspace ${workspaceId}`);
        return [line(one), ...previewLines(one, workspaceId)];
      }
      const list = await listErasures(deps.pool, workspaceId, 500);
      return list.length ? list.map(line) : ['No erasure requests in this workspace'];
    }
    case 'suppression list': {
      const list = await listSuppressions(deps.pool, workspaceId, { includeLifted: flags.lifted === true, limit: 500 });
      if (!list.length) return ['No suppressions'];
      return list.map((s) => `${s.id}  ${s.kind}  since ${s.createdAt.toISOString()} by ${s.createdBy}${s.liftedAt ? `  lifted ${s.liftedAt.toISOString()} by ${s.liftedBy}` : ''}`);
    }
    case 'suppression lift': {
      const id = need(flags, 'id');
      const lifted = await liftSuppression(deps.pool, workspaceId, id, by.label, new Date());
      if (!lifted) throw new ErasureUsageError(`Suppression ${id} not found in workspace ${workspaceId}, or already lifted`);
      return [`Lifted ${lifted.id}: records naming that person are accepted again`];
    }
  }
}
