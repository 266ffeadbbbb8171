import got from 'got';
import { LEXICAL_DIMS } from './embed';
import { normalize } from './vectors';

/**
 * An OpenAI-compatible embeddings endpoint (`POST …/v1/embeddings`: OpenAI, Ollama, vLLM,
 * text-embeddings-inference, LM Studio) as the dense part of a text's vector, in place of the built-in
 * word vectors (docs/self-hosting/embeddings.md). The URL is the operator's own configuration, not a
 * user's, so it is fetched with got directly rather than through libs/safe-fetch (which refuses the
 * loopback and private addresses such a server usually listens on); it still has a time limit per request.
 */
export interface RemoteEmbeddingsOptions {
  /** EMBEDDINGS_URL: a base URL (`http://localhost:11434/v1`, `https://api.openai.com`) or the endpoint itself (`…/embeddings`). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** Texts per request. */
  batchSize: number;
  /** Requests started per minute at most (client-side); undefined: no limit. */
  requestsPerMinute?: number | undefined;
  /** Time limit of one request. */
  timeoutMs: number;
  /** Attempts after the first on 429, 5xx, a time-out or a connection error. */
  retries: number;
  /** First wait before a retry, doubled each time (a Retry-After header wins). */
  backoffMs: number;
}

export const REMOTE_DEFAULTS = { batchSize: 64, timeoutMs: 30_000, retries: 5, backoffMs: 500 } as const;

/** The longest wait before a retry, whatever Retry-After asks. */
const MAX_WAIT_MS = 60_000;

/** The provider failed (after its retries), or answered something that is not a usable embedding. */
export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
}

/**
 * Where the requests go. As OpenAI's clients treat a base URL (it ends in `/v1`, and `/embeddings` is
 * appended): a URL already ending in `/embeddings` is taken as given, one ending in `/v1` gets
 * `/embeddings`, any other gets `/v1/embeddings`.
 */
export function embeddingsEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(base)) return base;
  if (/\/v1$/.test(base)) return `${base}/embeddings`;
  return `${base}/v1/embeddings`;
}

/** The version stamped beside vectors made with a provider's model (with the built-in lexical part beside). */
export const remoteVersionOf = (model: string) => `remote:${model}+lex${LEXICAL_DIMS}`;

export interface RemoteEmbeddings {
  /** Dimensions of the model's vectors: from its first answer; undefined before. */
  readonly dims: number | undefined;
  /**
   * One unit vector per text (zeros for a text with no characters but spaces), asked in batches of
   * `batchSize`. `options` override the time limit and retries (a search asks once, briefly).
   */
  embed(texts: string[], options?: { timeoutMs?: number; retries?: number }): Promise<Float32Array[]>;
}

interface Answer {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

export interface RemoteDeps {
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function createRemoteEmbeddings(options: RemoteEmbeddingsOptions, deps: RemoteDeps = {}): RemoteEmbeddings {
  const endpoint = embeddingsEndpoint(options.url);
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = deps.now ?? Date.now;
  const spacing = options.requestsPerMinute ? 60_000 / options.requestsPerMinute : 0;
  let nextStart = 0;
  let dims: number | undefined;

  /** Waits for the rate limit's next slot (slots are taken in call order). */
  async function slot(): Promise<void> {
    if (!spacing) return;
    const at = Math.max(now(), nextStart);
    nextStart = at + spacing;
    const wait = at - now();
    if (wait > 0) await sleep(wait);
  }

  async function request(input: string[], timeoutMs: number, retries: number): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      await slot();
      let wait: number | undefined;
      let problem: string;
      try {
        const response = await got.post(endpoint, {
          json: { model: options.model, input, encoding_format: 'float' },
          headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
          timeout: { request: timeoutMs },
          retry: { limit: 0 },
          throwHttpErrors: false,
          responseType: 'text',
        });
        if (response.statusCode === 200) return vectorsOf(response.body, input.length);
        problem = `${endpoint} answered ${response.statusCode}${response.body ? `: ${response.body.slice(0, 200)}` : ''}`;
        if (response.statusCode !== 429 && response.statusCode < 500) throw new EmbeddingsError(problem);
        wait = retryAfterMs(response.headers['retry-after'], now());
      } catch (error) {
        if (error instanceof EmbeddingsError) throw error;
        problem = `${endpoint}: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (attempt >= retries) throw new EmbeddingsError(`${problem} (after ${attempt + 1} attempt${attempt ? 's' : ''})`);
      await sleep(Math.min(MAX_WAIT_MS, wait ?? options.backoffMs * 2 ** attempt));
    }
  }

  function vectorsOf(body: string, expected: number): Float32Array[] {
    let answer: Answer;
    try {
      answer = JSON.parse(body) as Answer;
    } catch {
      throw new EmbeddingsError(`${endpoint} answered something other than JSON`);
    }
    const data = answer.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new EmbeddingsError(`${endpoint} answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${expected} inputs`);
    }
    const out: Float32Array[] = new Array<Float32Array>(expected);
    data.forEach((item, i) => {
      const index = typeof item.index === 'number' ? item.index : i;
      const e = item.embedding;
      if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x)) || index < 0 || index >= expected || out[index]) {
        throw new EmbeddingsError(`${endpoint} answered an embedding that is not a list of numbers (index ${index})`);
      }
      // The first answer sets the dimensions; a later one of other dimensions would mix two spaces.
      dims ??= e.length;
      if (e.length !== dims) throw new EmbeddingsError(`${endpoint} answered ${e.length} dimensions where the model gave ${dims} before: EMBEDDINGS_MODEL changed meaning? Restart to re-embed.`);
      out[index] = normalize(Float32Array.from(e as number[]));
    });
    return out;
  }

  return {
    get dims() {
      return dims;
    },
    async embed(texts, override = {}) {
      const out: Float32Array[] = new Array<Float32Array>(texts.length);
      const asked = texts.map((t, i) => ({ t, i })).filter(({ t }) => t.trim() !== '');
      for (let at = 0; at < asked.length; at += options.batchSize) {
        const batch = asked.slice(at, at + options.batchSize);
        const vectors = await request(batch.map((b) => b.t), override.timeoutMs ?? options.timeoutMs, override.retries ?? options.retries);
        batch.forEach((b, j) => (out[b.i] = vectors[j]!));
      }
      if (asked.length < texts.length) {
        if (dims === undefined) await request(['dimensions'], override.timeoutMs ?? options.timeoutMs, override.retries ?? options.retries);
        texts.forEach((_, i) => (out[i] ??= new Float32Array(dims!)));
      }
      return out;
    },
  };
}
