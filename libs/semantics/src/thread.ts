import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RemoteEmbeddingsOptions } from './remote';
import type { SemanticsRequest, SemanticsResponse, SemanticsResults } from './thread-protocol';

type Op = keyof SemanticsResults;
type Args<O extends Op> = Omit<Extract<SemanticsRequest, { op: O }>, 'id' | 'op'>;

/**
 * Embedding and clustering run in one worker thread, so a long text or a large product never holds the
 * event loop that answers requests. Requests are answered in order; a crashed thread (out of memory)
 * fails what it held and is started again on the next request.
 */
export interface SemanticsThread {
  run<O extends Op>(op: O, args: Args<O>, transfer?: ArrayBuffer[]): Promise<SemanticsResults[O]>;
  /**
   * The thread's embedding: its version (stored beside every vector, so a change re-embeds) and its dims.
   * With an embedding provider its dimensions come from its first answer: this fails while it fails.
   */
  describe(): Promise<EmbeddingInfo>;
  /** The embedding's version alone, known without asking a provider. */
  version(): Promise<string>;
  close(): Promise<void>;
}

export interface EmbeddingInfo {
  version: string;
  dims: number;
  denseDims: number;
}

export interface SemanticsThreadOptions {
  /** Heap limit of the thread. */
  maxHeapMb?: number;
  /**
   * Ends the thread after this long without work (it starts again on the next request), giving its
   * memory (the model, ~150 MB) back between bursts. For callers that keep no state in it: the
   * worker's embedding and clustering, not the MCP server's search index.
   */
  idleExitMs?: number;
  /** An OpenAI-compatible embeddings endpoint for the dense part (EMBEDDINGS_URL); the built-in word vectors without. */
  embeddings?: RemoteEmbeddingsOptions | undefined;
  /**
   * `background` (the default): the thread runs at a lower CPU priority, so a long clustering yields to the
   * requests. `requests`: it answers them (the MCP server's search index), so it keeps the normal priority.
   */
  priority?: 'background' | 'requests';
}

const require = createRequire(import.meta.url);

export function startSemanticsThread(options: SemanticsThreadOptions = {}): SemanticsThread {
  let worker: Worker | undefined;
  let info: Promise<EmbeddingInfo> | undefined;
  let version: Promise<string> | undefined;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | undefined;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  function failAll(error: Error) {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  }

  function ensure(): Worker {
    if (worker) return worker;
    // The thread runs TypeScript like the rest of the service: through tsx's loader.
    const w = new Worker(new URL('./thread-main.ts', import.meta.url), {
      execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href],
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 1_024 },
      workerData: { embeddings: options.embeddings, background: (options.priority ?? 'background') === 'background' },
    });
    w.unref();
    w.on('message', (response: SemanticsResponse) => {
      const p = pending.get(response.id);
      if (!p) return;
      pending.delete(response.id);
      if (response.ok) p.resolve(response.result);
      else p.reject(new Error(`semantics thread: ${response.error}`));
    });
    w.on('error', (error) => {
      if (worker === w) worker = undefined;
      failAll(error);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`semantics thread exited (code ${code})`));
    });
    worker = w;
    return w;
  }

  const thread: SemanticsThread = {
    describe() {
      info ??= thread.run('embed', { texts: [] }).then(
        (out) => ({ version: out.version, dims: out.dims, denseDims: out.denseDims }),
        (error: unknown) => {
          info = undefined;
          throw error;
        },
      );
      return info;
    },
    version() {
      version ??= thread.run('version', {}).then(
        (out) => out.version,
        (error: unknown) => {
          version = undefined;
          throw error;
        },
      );
      return version;
    },
    run(op, args, transfer = []) {
      const id = nextId++;
      clearTimeout(idleTimer);
      const w = ensure();
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        w.ref();
        w.postMessage({ id, op, ...args }, transfer);
      }).finally(() => {
        if (pending.size > 0) return;
        worker?.unref();
        if (options.idleExitMs !== undefined) {
          idleTimer = setTimeout(() => {
            const idle = worker;
            if (!idle || pending.size > 0) return;
            worker = undefined;
            void idle.terminate();
          }, options.idleExitMs);
          idleTimer.unref();
        }
      }) as Promise<SemanticsResults[typeof op]>;
    },
    async close() {
      clearTimeout(idleTimer);
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
      failAll(new Error('semantics thread closed'));
    },
  };
  return thread;
}
