import type pg from 'pg';
import type { SemanticsThread } from '@loupe/semantics';

/**
 * Each MCP server's copy of the vocabularies (./vocabulary) of the workspaces it searches, held by its search
 * thread for the second stage of find_sources. The stored row is checked at most every CHECK_MS while the
 * workspace is searched: a vocabulary learned again is read once, and one a deletion emptied is dropped.
 */
const CHECK_MS = 10_000;

export interface VocabularyLoader {
  /**
   * Makes sure the thread holds the workspace's vocabulary as stored: the first search of a workspace waits for
   * it (one statement), later ones check in the background when the last check is older than CHECK_MS.
   */
  ready(workspaceId: string): Promise<void>;
  /** The thread answered the workspace's search without its vocabulary (it was started again): read it again. */
  missing(workspaceId: string): void;
}

interface Held {
  /** The stored row's generation and learning time when last read ('' : no vocabulary). */
  key: string;
  checkedAt: number;
  checking?: Promise<void>;
}

export function createVocabularyLoader(deps: { pool: Pick<pg.Pool, 'query'>; semantics: SemanticsThread; checkMs?: number }): VocabularyLoader {
  const checkMs = deps.checkMs ?? CHECK_MS;
  const held = new Map<string, Held>();

  async function check(workspaceId: string, h: Held): Promise<void> {
    h.checkedAt = Date.now();
    // The model only when it changed (a few megabytes for a large workspace).
    const { rows } = await deps.pool.query<{ key: string; model: Buffer | null }>(
      `SELECT k.key, CASE WHEN k.key = $2 THEN NULL ELSE v.model END AS model
         FROM search_vocabularies v, LATERAL (SELECT v.generation || ':' || v.built_at::text AS key) k
        WHERE v.workspace_id = $1 AND v.model IS NOT NULL`,
      [workspaceId, h.key],
    );
    const row = rows[0];
    const key = row?.key ?? '';
    if (key === h.key) return;
    const model = row?.model ? new Uint8Array(row.model.buffer, row.model.byteOffset, row.model.byteLength) : null;
    await deps.semantics.run('vocabulary-set', { collection: workspaceId, model });
    h.key = key;
  }

  function refresh(workspaceId: string, h: Held): Promise<void> {
    h.checking ??= check(workspaceId, h).finally(() => {
      h.checking = undefined;
    });
    return h.checking;
  }

  return {
    async ready(workspaceId) {
      let h = held.get(workspaceId);
      if (!h) {
        held.set(workspaceId, (h = { key: '', checkedAt: 0 }));
        // A search goes on without the vocabulary when it cannot be read.
        await refresh(workspaceId, h).catch(() => undefined);
      } else if (Date.now() - h.checkedAt > checkMs) {
        void refresh(workspaceId, h).catch(() => undefined);
      }
    },
    missing(workspaceId) {
      const h = held.get(workspaceId);
      if (h?.key) held.delete(workspaceId);
    },
  };
}
