import { loadKeyring, purgeConnectionSlice, realSleep, rewrapConnectionKeys, scheduleActiveConnections, syncConnection } from '@loupe/connectors';
import { runErasure } from '@loupe/erasure';
import { purgeStaleDrafts, runFileImport } from '@loupe/file-import';
import { CLUSTERING_METHOD, resolveWorkspaceCompanies, updateOpportunities } from '@loupe/evidence';
import { applyRetentionSlice, pruneSourceDeletions, sweepStorageDeletions, workspacesWithRetention } from '@loupe/lifecycle';
import { embedPendingSources, markOutdatedSources, refreshVocabulary, vocabularyNeverLearned, vocabularyState, vocabularyToLearnAgain } from '@loupe/sources';
import type { Config } from '@loupe/config';
import type { Db } from '@loupe/db';
import { slicesOf, type Clock, type Logger } from '@loupe/http';
import { enqueue, QUEUES, payloadSchemas, type Boss } from '@loupe/jobs';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { createSafeFetch, type SafeFetch } from '@loupe/safe-fetch';
import { createStorage, type Storage } from '@loupe/storage';
import type pg from 'pg';
import type { JobWithMetadata } from 'pg-boss';
import type { Attempt, WorkerContext } from './context';
import { handleDeadJob } from './dead-letter';
import { downloadAttachment } from './download-attachment';
import { DEFAULT_OPTIONS, type WorkerOptions } from './options';
import { processBatch } from './process-batch';

export interface WorkerDeps {
  pool: pg.Pool;
  db: Db;
  boss: Boss;
  clock: Clock;
  log: Logger;
  config: Config;
  /** Where attachments go; `<config.dataDir>/attachments` on local disk by default. */
  storage?: Storage;
  /** The outbound fetch; the SSRF-safe one with `config.fetchAllowLoopback` by default. */
  fetch?: SafeFetch;
  /** Embedding and clustering off the event loop; a thread of the worker's own by default (closed with it). */
  semantics?: SemanticsThread;
  /**
   * Resolves when the requests of the process this worker runs in have had their turn: the worker inside
   * `npm start` waits on it before each slice of work, passing how long the loop worked since its last one
   * (`slicesOf`, `createPacing` in @loupe/http), so searches and pages go first. None alone.
   */
  yieldToRequests?: (workedMs: number) => Promise<void>;
  /** How connection syncs wait out a vendor's Retry-After; a real timer by default (tests move time instead). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  options?: Partial<WorkerOptions>;
}

export interface Worker {
  /** Starts taking jobs. */
  start(): Promise<void>;
  /** Stops taking jobs and lets the ones in hand finish, for up to `config.shutdownTimeoutMs`. */
  stop(): Promise<void>;
}

/**
 * Batches waiting (a bulk load) from which embedding sources steps aside between its slices: a source is
 * searchable by its words as soon as its batch is processed, by its meaning once the load has passed.
 * Under a steady flow (a batch or two waiting) embedding keeps going.
 */
const EMBED_YIELDS_TO_BATCHES = 3;

const QUEUES_WORKED = [
  QUEUES.processBatch, QUEUES.downloadAttachment, QUEUES.recomputeOpportunities, QUEUES.settleOpportunities, QUEUES.embedSources, QUEUES.erasePerson, QUEUES.retention, QUEUES.resolveCompanies,
  QUEUES.syncConnection, QUEUES.purgeConnection, QUEUES.importFile, QUEUES.deadLetter,
] as const;

function attemptOf(job: JobWithMetadata<unknown>): Attempt {
  return { retryCount: job.retryCount, retryLimit: job.retryLimit, signal: job.signal };
}

function wait(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
}

/**
 * The background worker: processes landed batches into sources and credit charges, and downloads
 * their attachments. Any number of workers, in any number of processes, may run at once.
 */
export function createWorker(deps: WorkerDeps): Worker {
  const options: WorkerOptions = { ...DEFAULT_OPTIONS, ...deps.options };
  const shutdown = new AbortController();
  const ctx: WorkerContext = {
    pool: deps.pool,
    boss: deps.boss,
    clock: deps.clock,
    log: deps.log,
    config: deps.config,
    storage: deps.storage ?? createStorage(deps.config),
    fetch: deps.fetch ?? createSafeFetch({ allowLoopback: deps.config.fetchAllowLoopback }),
    options,
    shutdown: shutdown.signal,
    yieldToRequests: deps.yieldToRequests,
  };
  // The thread keeps nothing between jobs: it ends after 30 s without work, so its memory is not held while the worker is idle.
  // With EMBEDDINGS_URL the thread asks that provider for the vectors; a provider down fails only the embedding
  // jobs (retried with backoff by pg-boss), never the writes they follow.
  const semantics = deps.semantics ?? startSemanticsThread({ idleExitMs: 30_000, embeddings: deps.config.embeddings });
  const concurrency = Math.max(1, deps.config.workerConcurrency);
  let state: 'idle' | 'running' | 'stopped' = 'idle';
  let stopping: Promise<void> | undefined;

  async function start(): Promise<void> {
    if (state !== 'idle') return;
    state = 'running';
    const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds, includeMetadata: true as const, batchSize: 1 };
    // As many batch jobs as `concurrency`: pg-boss waits out its polling interval after a job
    // shorter than it (a 1,000-record batch takes less), so each worker drains at most one batch
    // per interval; more workers cover those waits (bench:pipeline, bench:soak).
    await deps.boss.work<unknown, unknown, typeof polling & { localConcurrency: number }>(
      QUEUES.processBatch,
      { ...polling, localConcurrency: concurrency },
      async ([job]) => {
        if (!job) return undefined;
        return processBatch(ctx, payloadSchemas[QUEUES.processBatch].parse(job.data), attemptOf(job));
      },
    );
    await deps.boss.work<unknown, unknown, typeof polling & { localConcurrency: number }>(
      QUEUES.downloadAttachment,
      { ...polling, localConcurrency: concurrency },
      async ([job]) => {
        if (!job) return undefined;
        return downloadAttachment(ctx, payloadSchemas[QUEUES.downloadAttachment].parse(job.data), attemptOf(job));
      },
    );
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.recomputeOpportunities,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const payload = payloadSchemas[QUEUES.recomputeOpportunities].parse(job.data);
        const result = await updateOpportunities({ pool: ctx.pool, semantics, clock: ctx.clock }, payload.workspaceId, payload.productId);
        // Placed one by one: once the product has been quiet for a while, cluster it again as a whole.
        if (result.unsettled) await enqueue(deps.boss, QUEUES.settleOpportunities, payload, { startAfter: options.settleAfterSeconds });
        return result;
      },
    );
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.settleOpportunities,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId, productId } = payloadSchemas[QUEUES.settleOpportunities].parse(job.data);
        return updateOpportunities({ pool: ctx.pool, semantics, clock: ctx.clock }, workspaceId, productId, { settle: true });
      },
    );
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.embedSources,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId } = payloadSchemas[QUEUES.embedSources].parse(job.data);
        // Batches come first: with several waiting (a bulk load), embedding stops between slices and
        // goes on a moment later, so that it does not take the CPU that keeps the pipeline at its rate.
        let yielded = false;
        const nextSlice = slicesOf(deps.yieldToRequests);
        const embedded = await embedPendingSources({ pool: ctx.pool, semantics }, workspaceId, {
          yieldWhen: async () => {
            await nextSlice();
            return (yielded = (await batchesWaiting()) >= EMBED_YIELDS_TO_BATCHES);
          },
        });
        if (yielded) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId }, { startAfter: 2 });
        // The workspace's own vocabulary for search (libs/sources/src/vocabulary.ts), when due; during a load
        // it waits for the job that ends it, to be learned from what is embedded by then.
        const vocabulary = await refreshVocabulary({ pool: ctx.pool, semantics, now: () => new Date(ctx.clock.now()) }, workspaceId, embedded, { learn: !yielded });
        if (vocabulary.learned) deps.log.info({ workspaceId, ...vocabulary }, 'vocabulary for search learned');
        return { embedded, yielded, vocabulary };
      },
    );
    // Erasing a person (libs/erasure): slice after slice to the end, resuming where a retry left off; a dry
    // run ends previewed, and its job queued 24 hours later expires the preview unless it was confirmed.
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.erasePerson,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId, erasureId } = payloadSchemas[QUEUES.erasePerson].parse(job.data);
        return runErasure({ pool: ctx.pool, boss: deps.boss, storage: ctx.storage, clock: ctx.clock, log: deps.log }, workspaceId, erasureId, { signal: job.signal });
      },
    );
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.retention,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId } = payloadSchemas[QUEUES.retention].parse(job.data);
        if (!workspaceId) return retentionSweep();
        // One slice per job, queued again while there is more: other work runs between slices, and a
        // stop or a crash loses at most the slice in hand (rolled back, retried).
        const slice = await applyRetentionSlice({ pool: ctx.pool, storage: ctx.storage, clock: ctx.clock, log: deps.log }, workspaceId, options.retentionSlice);
        if (slice.more) await enqueue(deps.boss, QUEUES.retention, { workspaceId });
        else await learnVocabularyAgain(workspaceId);
        if (slice.sources || slice.records) deps.log.info({ workspaceId, ...slice }, 'retention deleted old evidence');
        return slice;
      },
    );
    // Companies or people changed (libs/companies queues one job per workspace): every signal of the workspace
    // resolves again, a slice per short transaction, and its opportunities' impact follows.
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.resolveCompanies,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId } = payloadSchemas[QUEUES.resolveCompanies].parse(job.data);
        const result = await resolveWorkspaceCompanies(ctx.pool, workspaceId, ctx.clock, { signal: job.signal });
        if (result.changed || result.opportunities) deps.log.info({ workspaceId, ...result }, 'signals resolved to companies again');
        return result;
      },
    );
    // Connections to vendors (libs/connectors): a sync from the stored cursor, page by page; its next run is queued when it ends.
    const keyring = await loadKeyring(deps.pool, deps.config.connectionsKey);
    const rewrapped = await rewrapConnectionKeys(deps.pool, keyring);
    if (rewrapped) deps.log.info({ rewrapped, keyId: keyring.current.id }, 'connection data keys re-wrapped with the current CONNECTIONS_KEY');
    const syncDeps = { pool: ctx.pool, boss: deps.boss, clock: ctx.clock, log: deps.log, keyring, fetch: ctx.fetch, sleep: deps.sleep ?? realSleep };
    await deps.boss.work<unknown, unknown, typeof polling & { localConcurrency: number }>(
      QUEUES.syncConnection,
      { ...polling, localConcurrency: concurrency },
      async ([job]) => {
        if (!job) return undefined;
        const { connectionId } = payloadSchemas[QUEUES.syncConnection].parse(job.data);
        return syncConnection(syncDeps, connectionId, AbortSignal.any([job.signal, shutdown.signal]));
      },
    );
    // A connection deleted with its data: its records (and their sources) go a slice per job.
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.purgeConnection,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const payload = payloadSchemas[QUEUES.purgeConnection].parse(job.data);
        const slice = await purgeConnectionSlice({ pool: ctx.pool, storage: ctx.storage, clock: ctx.clock, log: deps.log }, payload.workspaceId, payload.connectionId);
        if (slice.more) await enqueue(deps.boss, QUEUES.purgeConnection, payload);
        else await learnVocabularyAgain(payload.workspaceId);
        return slice;
      },
    );
    // A file imported from the console (libs/file-import): the stored upload streamed in slices of 1,000 rows
    // through the ingestion API's accept path; a retry resumes from the saved cursor, the last one ends it as failed.
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.importFile,
      polling,
      async ([job]) => {
        if (!job) return undefined;
        const { workspaceId, importId } = payloadSchemas[QUEUES.importFile].parse(job.data);
        return runFileImport(
          { pool: ctx.pool, boss: deps.boss, storage: ctx.storage, clock: ctx.clock, log: deps.log, ...(deps.yieldToRequests ? { between: slicesOf(deps.yieldToRequests) } : {}) },
          workspaceId, importId, { signal: AbortSignal.any([job.signal, shutdown.signal]), finalAttempt: job.retryCount >= job.retryLimit },
        );
      },
    );
    // Every active connection has its schedule, due an interval after its last sync (one waits per connection).
    await scheduleActiveConnections(deps.pool, deps.boss, new Date(ctx.clock.now()));
    // A start resumes retention at once (a slice job per workspace with it on, whatever sweep waits);
    // the sweep runs now unless one is already waiting.
    for (const workspaceId of await workspacesWithRetention(deps.pool)) await enqueue(deps.boss, QUEUES.retention, { workspaceId });
    await enqueue(deps.boss, QUEUES.retention, {});
    await scheduleOpportunityBackfill();
    await scheduleSourceEmbedding();
    await deps.boss.work<unknown, unknown, typeof polling>(
      QUEUES.deadLetter,
      { ...polling, pollingIntervalSeconds: Math.max(options.pollingIntervalSeconds, 5) },
      async ([job]) => (job ? handleDeadJob(ctx, job) : undefined),
    );
    deps.log.info({ concurrency, queues: QUEUES_WORKED }, 'worker started');
  }

  /**
   * Products with signals not yet placed (written before this version, or while no worker ran) or clustered
   * with another embedding or grouping method get their update queued: the backfill runs as ordinary jobs,
   * a product at a time.
   */
  async function scheduleOpportunityBackfill(): Promise<void> {
    const { rows } = await deps.pool.query<{ workspace_id: string; product_id: string }>('SELECT DISTINCT workspace_id, product_id FROM signals WHERE cluster_pending');
    const { rowCount: clustered } = await deps.pool.query('SELECT 1 FROM product_clusterings LIMIT 1');
    if (clustered) {
      // The version alone: known without asking an embedding provider, so a provider down never stops a start.
      const version = await semantics.version();
      const { rows: outdated } = await deps.pool.query<{ workspace_id: string; product_id: string }>(
        'SELECT workspace_id, product_id FROM product_clusterings WHERE embedding_version <> $1 OR clustering_method <> $2',
        [version, CLUSTERING_METHOD],
      );
      rows.push(...outdated);
    }
    for (const r of rows) await enqueue(deps.boss, QUEUES.recomputeOpportunities, { workspaceId: r.workspace_id, productId: r.product_id });
    if (rows.length) deps.log.info({ products: rows.length }, 'opportunity updates queued for products with unplaced signals');
  }

  /**
   * Retention's sweep: a slice job for every workspace with retention on, the deletion log pruned, the
   * files a deletion wrote down and did not get to deleted, the next sweep queued.
   */
  async function retentionSweep(): Promise<{ workspaces: number; pruned: number; files: number }> {
    const workspaces = await workspacesWithRetention(deps.pool);
    for (const workspaceId of workspaces) await enqueue(deps.boss, QUEUES.retention, { workspaceId });
    const pruned = await pruneSourceDeletions(deps.pool, new Date(ctx.clock.now()));
    // Vocabularies for search a deletion or an erasure emptied: learned again by the workspace's embedding job.
    for (const workspaceId of await vocabularyToLearnAgain(deps.pool)) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
    const files = await sweepStorageDeletions({ pool: ctx.pool, storage: ctx.storage, clock: ctx.clock, log: deps.log });
    // Files uploaded for an import and never imported (libs/file-import): kept a week, then deleted.
    const drafts = await purgeStaleDrafts(ctx.pool, ctx.storage, new Date(ctx.clock.now()));
    if (drafts) deps.log.info({ drafts }, 'file imports uploaded a week ago and never started were deleted with their files');
    if (files) deps.log.info({ files }, 'files of deleted attachments left behind were deleted');
    await enqueue(deps.boss, QUEUES.retention, {}, { startAfter: options.retentionIntervalSeconds });
    return { workspaces: workspaces.length, pruned, files };
  }

  /** Deletions emptied the workspace's vocabulary for search: its embedding job learns it again from what is left (if it was emptied). */
  async function learnVocabularyAgain(workspaceId: string): Promise<void> {
    const state = await vocabularyState(deps.pool, workspaceId);
    if (state && !state.learned) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
  }

  /** Batches waiting to be processed, counted up to EMBED_YIELDS_TO_BATCHES. */
  async function batchesWaiting(): Promise<number> {
    const { rows } = await deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM pgboss.job WHERE name = $1 AND state = 'created' LIMIT ${EMBED_YIELDS_TO_BATCHES}) x`,
      [QUEUES.processBatch],
    );
    return rows[0]!.n;
  }

  /** Workspaces with sources not embedded yet (stored before this version, or while no worker ran), or with no vocabulary for search yet, get their job queued. */
  async function scheduleSourceEmbedding(): Promise<void> {
    const version = await semantics.version();
    // Sources embedded with another version wait again (the index skips them until then).
    const workspaces = await markOutdatedSources(deps.pool, version);
    for (const workspaceId of workspaces) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
    if (workspaces.length) deps.log.info({ workspaces: workspaces.length, version }, 'source embedding queued for workspaces with sources not embedded yet');
    // Workspaces with enough sources and no vocabulary for search yet (embedded before it existed): their job learns it.
    const unlearned = (await vocabularyNeverLearned(deps.pool)).filter((id) => !workspaces.includes(id));
    for (const workspaceId of unlearned) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
    if (unlearned.length) deps.log.info({ workspaces: unlearned.length }, 'vocabularies for search to learn queued');
  }

  async function stopOnce(): Promise<void> {
    if (state !== 'running') {
      state = 'stopped';
      return;
    }
    state = 'stopped';
    const drained = Promise.all(QUEUES_WORKED.map((q) => deps.boss.offWork(q, { wait: true }))).then(() => 'drained' as const);
    if ((await Promise.race([drained, wait(deps.config.shutdownTimeoutMs)])) === 'timeout') {
      deps.log.warn({ timeoutMs: deps.config.shutdownTimeoutMs }, 'jobs still running at the shutdown timeout; aborting them (they are retried)');
      shutdown.abort(new Error('worker shutdown'));
      await Promise.race([drained, wait(5_000)]);
    }
    if (!deps.semantics) await semantics.close();
    deps.log.info('worker stopped');
  }

  return {
    start,
    stop() {
      stopping ??= stopOnce();
      return stopping;
    },
  };
}
