import {
  ErasureInputError, listErasures, listSuppressions, liftSuppression, parseErasureInput, requestErasure, runErasure, type ErasureView,
} from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { createBoss, ensureQueues } from '@loupe/jobs';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';

/** A command given wrongly (missing flag, malformed value); the message says what to give. */
export class ErasureUsageError extends Error {
  override name = 'ErasureUsageError';
}

export const ERASURE_USAGE = `  person erase     --workspace <id> [--email <email>] [--participant <participant id>] [--run]
                   erases a person from the workspace (records, sources, signals, shaping notes, attachments;
                   see the README) and suppresses them; the worker does it, or this command with --run
  person erasures  --workspace <id>
                   the workspace's erasure requests (the audit: who asked, when, progress), newest first
  suppression list --workspace <id> [--lifted]
  suppression lift --workspace <id> --id <suppression id>
                   records naming a suppressed person are refused until the suppression is lifted`;

type Flags = Record<string, string | boolean | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new ErasureUsageError(`Missing --${name}`);
  return v.trim();
}

const counts = (e: ErasureView) => Object.entries(e.counts).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(', ') || 'nothing yet';
const line = (e: ErasureView) =>
  `${e.id}  ${e.createdAt.toISOString()}  by ${e.requestedBy}  (${e.subjectKind === 'email' ? 'email' : 'participant id'})  ${e.status}${e.status === 'running' ? ` [${e.phase}]` : ''}  ${counts(e)}`;

/** `person erase`, `person erasures`, `suppression list`, `suppression lift`: returns the lines to print. */
export async function erasureCommand(
  command: 'person erase' | 'person erasures' | 'suppression list' | 'suppression lift', flags: Flags,
  deps: { pool: pg.Pool; databaseUrl: string; storage: Storage },
): Promise<string[]> {
  const workspaceId = need(flags, 'workspace');
  const by = { label: 'admin CLI' };
  switch (command) {
    case 'person erase': {
      let input;
      try {
        input = parseErasureInput({ email: flags.email, participant_id: flags.participant });
      } catch (error) {
        if (error instanceof ErasureInputError) throw new ErasureUsageError(error.message.replace('"email" or "participant_id"', '--email or --participant').replace(/^participant_id/, '--participant').replace(/^email/, '--email'));
        throw error;
      }
      const { rows } = await deps.pool.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
      if (!rows.length) throw new ErasureUsageError(`Workspace ${workspaceId} not found`);
      const boss = createBoss({ connectionString: deps.databaseUrl, supervise: false, max: 1 });
      await boss.start();
      let erasure: ErasureView;
      try {
        await ensureQueues(boss);
        erasure = await requestErasure(deps.pool, boss, { workspaceId, email: input.email, participantId: input.participantId, by, now: new Date() });
        if (flags.run === true) {
          // Here and now, slice after slice; the worker's job then finds it complete.
          await runErasure({ pool: deps.pool, boss, storage: deps.storage, clock: systemClock }, workspaceId, erasure.id);
        }
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
      const after = (await listErasures(deps.pool, workspaceId, 500)).find((e) => e.id === erasure.id) ?? erasure;
      return [line(after), flags.run === true ? 'Erased. Records naming the person are refused until the suppression is lifted.' : 'Queued: the worker erases the person in the background (npm run admin -- person erasures to follow it).'];
    }
    case 'person erasures': {
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
