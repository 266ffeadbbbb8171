import { deleteEvidence, getRetention, MAX_DELETE_IDS, RETENTION_MAX_DAYS, RetentionError, setRetention } from '@loupe/lifecycle';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';

/** A command given wrongly (missing flag, malformed value); the message says what to give. */
export class LifecycleUsageError extends Error {
  override name = 'LifecycleUsageError';
}

type Flags = Record<string, string | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new LifecycleUsageError(`Missing --${name}`);
  return v.trim();
}

/** `source delete`, `record delete`, `workspace retention`: returns the lines to print. */
export async function lifecycleCommand(command: 'source delete' | 'record delete' | 'workspace retention', flags: Flags, deps: { pool: pg.Pool; storage: Storage }): Promise<string[]> {
  const workspaceId = need(flags, 'workspace');
  if (command === 'workspace retention') {
    const days = flags.days?.trim();
    if (days === undefined) {
      const current = await getRetention(deps.pool, workspaceId);
      return [current === null ? `Workspace ${workspaceId} keeps its sources until they are deleted (retention off)` : `Workspace ${workspaceId} keeps sources for ${current} days`];
    }
    if (days !== 'off' && !/^\d+$/.test(days)) throw new LifecycleUsageError(`--days must be a whole number from 1 to ${RETENTION_MAX_DAYS}, or off`);
    try {
      await setRetention(deps.pool, workspaceId, days === 'off' ? null : Number(days));
    } catch (error) {
      if (error instanceof RetentionError && /whole number/.test(error.message)) throw new LifecycleUsageError(`--days: ${error.message}`);
      throw error;
    }
    return [days === 'off'
      ? `Retention of workspace ${workspaceId} is off`
      : `Workspace ${workspaceId} keeps sources for ${days} days: the worker deletes older ones within the hour`];
  }
  const ids = need(flags, 'id').split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length > MAX_DELETE_IDS) throw new LifecycleUsageError(`--id takes at most ${MAX_DELETE_IDS} ids`);
  const object = command === 'source delete' ? 'source' : 'record';
  const out = await deleteEvidence({ pool: deps.pool, storage: deps.storage, clock: { now: () => Date.now() } }, workspaceId, object === 'source' ? { sourceIds: ids } : { recordIds: ids });
  const lines = object === 'source'
    ? out.sources.map((s) => `Deleted source ${s.id}${s.recordId ? ` and its record ${s.recordId}` : ''}`)
    : out.records.map((r) => `Deleted record ${r.id}${r.sourceId ? ` and its source ${r.sourceId}` : ''}`);
  if (out.signals || out.files) lines.push(`With them: ${out.signals} signal${out.signals === 1 ? '' : 's'}, ${out.files} stored file${out.files === 1 ? '' : 's'}`);
  for (const id of object === 'source' ? out.missingSourceIds : out.missingRecordIds) lines.push(`No ${object} ${id} in workspace ${workspaceId} (already deleted, or never there)`);
  return lines;
}

export { RetentionError };
