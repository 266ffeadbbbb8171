import { createHash } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

export type IngestRecord = components['schemas']['Record'];
export type SubmissionResponse = components['schemas']['SubmissionResponse'];
export type Batch = components['schemas']['Batch'];
export type BatchList = components['schemas']['BatchList'];
export type ErrorResponse = components['schemas']['ErrorResponse'];
export type RecordError = components['schemas']['RecordError'];
export type DeletedSource = components['schemas']['DeletedSource'];
export type DeletedRecord = components['schemas']['DeletedRecord'];

type Json<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } } ? T : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody: { content: { 'application/json': infer T } } } ? T : never;

/** A company as stored (GET /api/v1/companies/{external_id}). */
export type Company = Json<'/api/v1/companies/{external_id}', 'get', 200>;
/** The fields of a company for PUT /api/v1/companies/{external_id} (external_id from the path). */
export type CompanyFields = Body<'/api/v1/companies/{external_id}', 'put'>;
/** One company of POST /api/v1/companies:batch. */
export type CompanyItem = CompanyFields & { external_id: string };
export type CompanyList = Json<'/api/v1/companies', 'get', 200>;
export type Person = Json<'/api/v1/people/{external_id}', 'get', 200>;
export type PersonFields = Body<'/api/v1/people/{external_id}', 'put'>;
export type PersonItem = PersonFields & { external_id: string };
export type PersonList = Json<'/api/v1/people', 'get', 200>;
/** What an import of companies or people stored and refused; `errors` indexes are into the list given. */
export type ImportResult = Json<'/api/v1/companies:batch', 'post', 200>;
export type ItemError = ImportResult['errors'][number];
export type Deleted = { external_id: string; object: 'company' | 'person'; deleted: true };
/** A connection to a vendor (GET /api/v1/connections/{connectionId}); its credentials are never returned. */
export type Connection = Json<'/api/v1/connections/{connectionId}', 'get', 200>;
export type NewConnection = Body<'/api/v1/connections', 'post'>;
export type ConnectionChange = Body<'/api/v1/connections/{connectionId}', 'patch'>;
export type DeletedConnection = Json<'/api/v1/connections/{connectionId}', 'delete', 200>;

/** The API's limits a request must stay within (spec 8). */
export const REQUEST_LIMITS = { records: 1000, bytes: 5 * 1024 * 1024 } as const;

/** An answer the API gave that is not a success: its status, code, message, and the record errors it lists. */
export class IngestApiError extends Error {
  override name = 'IngestApiError';
  constructor(
    readonly status: number,
    readonly body: ErrorResponse,
  ) {
    super(`${status} ${body.error}: ${body.message}`);
  }
  get code(): string {
    return this.body.error;
  }
  get recordErrors(): RecordError[] {
    return this.body.errors ?? [];
  }
}

export interface IngestClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Tries per request for 429, 409 (same key still in flight), 5xx and network errors; 5 by default. */
  maxAttempts?: number;
  /** Waits, in milliseconds (tests pass a fake); setTimeout by default. */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
}

/** One request's worth of records, as sent: the body and the indexes its records have in the caller's list. */
export interface Chunk {
  body: string;
  first: number;
  count: number;
}

/** Cuts a stream of records into request bodies of at most 1,000 records and 5 MB, in order. */
class Chunker {
  private parts: string[] = [];
  private bytes = 2; // the brackets
  private first = 0;
  private index = 0;
  constructor(private readonly limits: { records: number; bytes: number }) {}

  /** Adds a record; returns the finished body it does not fit in, if any. */
  push(record: unknown): Chunk | undefined {
    const text = JSON.stringify(record);
    const size = Buffer.byteLength(text) + (this.parts.length ? 1 : 0);
    let done: Chunk | undefined;
    if (this.parts.length && (this.parts.length >= this.limits.records || this.bytes + size > this.limits.bytes)) done = this.flush();
    this.bytes += Buffer.byteLength(text) + (this.parts.length ? 1 : 0);
    this.parts.push(text);
    this.index++;
    return done;
  }

  flush(): Chunk | undefined {
    if (!this.parts.length) return undefined;
    const chunk = { body: `[${this.parts.join(',')}]`, first: this.first, count: this.parts.length };
    this.parts = [];
    this.bytes = 2;
    this.first = this.index;
    return chunk;
  }
}

/**
 * Splits records into request bodies of at most 1,000 records and 5 MB each, in order. A record
 * too large for a request on its own still gets its own body (the API then answers 413 for it).
 * The cuts depend only on the records from the start, so the same records always cut the same way.
 */
export function* chunks(records: Iterable<unknown>, limits = REQUEST_LIMITS): Generator<Chunk> {
  const chunker = new Chunker(limits);
  for (const record of records) {
    const done = chunker.push(record);
    if (done) yield done;
  }
  const last = chunker.flush();
  if (last) yield last;
}

/** `chunks` over records that arrive asynchronously (a file being read). */
export async function* chunksOf(records: AsyncIterable<unknown>, limits = REQUEST_LIMITS): AsyncGenerator<Chunk> {
  const chunker = new Chunker(limits);
  for await (const record of records) {
    const done = chunker.push(record);
    if (done) yield done;
  }
  const last = chunker.flush();
  if (last) yield last;
}

/** The Idempotency-Key of a request body: the same body always gets the same key, so a resend never duplicates. */
export function idempotencyKeyOf(body: string): string {
  return `loupe-client-${createHash('sha256').update(body).digest('base64url')}`;
}

const RETRIED = new Set([409, 429, 500, 502, 503, 504]);
/** A connection's 409 says it is paused or failing: asking again changes nothing. */
const CONNECTION_RETRIED = new Set([429, 500, 502, 503, 504]);
/** Creating: a 5xx may have stored it already, so only a refusal before any write is retried. */
const NOT_RETRIED_WRITES = new Set([429]);

/**
 * A typed client of the record-ingestion API (types generated from its OpenAPI document;
 * openapi-fetch underneath). Submissions are split to the API's limits, each request carries an
 * Idempotency-Key derived from its body, and 429, 409-in-flight, 5xx and network failures are
 * retried after the server's Retry-After.
 */
export function createIngestClient(options: IngestClientOptions) {
  const maxAttempts = options.maxAttempts ?? 5;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { 'x-api-key': options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function withRetries<T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>, retried = RETRIED): Promise<T> {
    return (await answered(call, retried)).data;
  }

  /** The answer's data and status once it is a success, after the retries. */
  async function answered<T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>, retried = RETRIED): Promise<{ data: T; status: number }> {
    for (let attempt = 1; ; attempt++) {
      let result: { data?: T; error?: unknown; response: Response };
      try {
        result = await call();
      } catch (error) {
        if (attempt >= maxAttempts) throw error;
        await sleep(Math.min(30_000, 500 * 2 ** (attempt - 1)));
        continue;
      }
      const { data, error, response } = result;
      if (response.ok && data !== undefined) return { data, status: response.status };
      if (retried.has(response.status) && attempt < maxAttempts) {
        const seconds = Number(response.headers.get('retry-after') ?? (error as ErrorResponse | undefined)?.retryAfter ?? 2 ** (attempt - 1));
        await sleep(Math.max(0, seconds) * 1000);
        continue;
      }
      throw new IngestApiError(response.status, (error as ErrorResponse) ?? { error: 'UNEXPECTED_RESPONSE', message: `HTTP ${response.status} without an error body` });
    }
  }

  // An upsert is idempotent: a batch sent again after a lost answer stores the same (its counts say "updated").
  async function importItems(path: '/api/v1/companies:batch' | '/api/v1/people:batch', items: Iterable<unknown>): Promise<ImportResult> {
    const total: ImportResult = { createdCount: 0, updatedCount: 0, rejectedCount: 0, errors: [] };
    for (const chunk of chunks(items)) {
      const answer = await withRetries(() => api.POST(path, {
        body: chunk.body as never,
        bodySerializer: (body: unknown) => body as string,
        headers: { 'content-type': 'application/json' },
      })) as ImportResult;
      total.createdCount += answer.createdCount;
      total.updatedCount += answer.updatedCount;
      total.rejectedCount += answer.rejectedCount;
      total.errors.push(...answer.errors.map((e) => ({ ...e, index: chunk.first + e.index })));
    }
    return total;
  }

  return {
    /** Sends one request body as it is (for callers that build their own, like the uploader). */
    async submitChunk(chunk: Chunk, query: { format?: 'text' | 'audio' | 'video' | 'file' } = {}): Promise<SubmissionResponse> {
      return withRetries(() => api.POST('/api/v1/ingest', {
        params: { header: { 'Idempotency-Key': idempotencyKeyOf(chunk.body) }, query },
        body: chunk.body as never,
        bodySerializer: (body: unknown) => body as string,
        headers: { 'content-type': 'application/json' },
      }));
    },

    /** Sends any number of records as requests within the limits, one after another; the answers in order. */
    async submit(records: Iterable<IngestRecord | Record<string, unknown>>, query: { format?: 'text' | 'audio' | 'video' | 'file' } = {}) {
      const answers: Array<SubmissionResponse & { first: number; count: number }> = [];
      for (const chunk of chunks(records)) answers.push({ ...(await this.submitChunk(chunk, query)), first: chunk.first, count: chunk.count });
      return answers;
    },

    async listBatches(query: { limit?: number; cursor?: string } = {}): Promise<BatchList> {
      return withRetries(() => api.GET('/api/v1/ingest/batches', { params: { query } }));
    },

    async getBatch(batchId: string): Promise<Batch> {
      return withRetries(() => api.GET('/api/v1/ingest/batches/{batchId}', { params: { path: { batchId } } }));
    },

    /** Deletes a source with the record it was built from; IngestApiError 404 when there is none (or no longer). */
    async deleteSource(sourceId: string): Promise<DeletedSource> {
      return withRetries(() => api.DELETE('/api/v1/sources/{sourceId}', { params: { path: { sourceId } } }));
    },

    /** Deletes a record with the source built from it; IngestApiError 404 when there is none (or no longer). */
    async deleteRecord(recordId: string): Promise<DeletedRecord> {
      return withRetries(() => api.DELETE('/api/v1/records/{recordId}', { params: { path: { recordId } } }));
    },

    /** Creates or replaces a company by its external_id (the whole company: a field left out is cleared). */
    async upsertCompany(externalId: string, fields: CompanyFields): Promise<{ created: boolean; company: Company }> {
      const { data, status } = await answered(() => api.PUT('/api/v1/companies/{external_id}', { params: { path: { external_id: externalId } }, body: fields }));
      return { created: status === 201, company: data };
    },

    /**
     * Upserts any number of companies, in requests of at most 1,000 and 5 MB, one after another; the counts summed, and the
     * errors (the first 20 of each request) indexed into `items`.
     */
    async importCompanies(items: Iterable<CompanyItem>): Promise<ImportResult> {
      return importItems('/api/v1/companies:batch', items);
    },

    async listCompanies(query: { limit?: number; cursor?: string } = {}): Promise<CompanyList> {
      return withRetries(() => api.GET('/api/v1/companies', { params: { query } }));
    },

    /** A company; IngestApiError 404 when there is none. */
    async getCompany(externalId: string): Promise<Company> {
      return withRetries(() => api.GET('/api/v1/companies/{external_id}', { params: { path: { external_id: externalId } } }));
    },

    /** Deletes a company (its people and evidence stay, unlinked); IngestApiError 404 when there is none. */
    async deleteCompany(externalId: string): Promise<Deleted> {
      return withRetries(() => api.DELETE('/api/v1/companies/{external_id}', { params: { path: { external_id: externalId } } })) as Promise<Deleted>;
    },

    /** Creates or replaces a person by their external_id. */
    async upsertPerson(externalId: string, fields: PersonFields): Promise<{ created: boolean; person: Person }> {
      const { data, status } = await answered(() => api.PUT('/api/v1/people/{external_id}', { params: { path: { external_id: externalId } }, body: fields }));
      return { created: status === 201, person: data };
    },

    /** Upserts any number of people, like `importCompanies`. */
    async importPeople(items: Iterable<PersonItem>): Promise<ImportResult> {
      return importItems('/api/v1/people:batch', items);
    },

    async listPeople(query: { limit?: number; cursor?: string } = {}): Promise<PersonList> {
      return withRetries(() => api.GET('/api/v1/people', { params: { query } }));
    },

    async getPerson(externalId: string): Promise<Person> {
      return withRetries(() => api.GET('/api/v1/people/{external_id}', { params: { path: { external_id: externalId } } }));
    },

    async deletePerson(externalId: string): Promise<Deleted> {
      return withRetries(() => api.DELETE('/api/v1/people/{external_id}', { params: { path: { external_id: externalId } } })) as Promise<Deleted>;
    },

    /** Connects a vendor; its first sync (the backfill) is queued. The credentials are sent once and never come back. */
    async createConnection(connection: NewConnection): Promise<Connection> {
      // Not retried on 5xx after a lost answer: a retry could make a second connection.
      return withRetries(() => api.POST('/api/v1/connections', { body: connection }), NOT_RETRIED_WRITES);
    },

    async listConnections(): Promise<Connection[]> {
      return (await withRetries(() => api.GET('/api/v1/connections'))).connections;
    },

    /** Status, last sync, records brought in, last error; IngestApiError 404 when there is none. */
    async getConnection(id: string): Promise<Connection> {
      return withRetries(() => api.GET('/api/v1/connections/{connectionId}', { params: { path: { connectionId: id } } }));
    },

    /** Settings, credentials, base_url or interval: what is given replaces what was. */
    async updateConnection(id: string, change: ConnectionChange): Promise<Connection> {
      return withRetries(() => api.PATCH('/api/v1/connections/{connectionId}', { params: { path: { connectionId: id } }, body: change }), CONNECTION_RETRIED);
    },

    async pauseConnection(id: string): Promise<Connection> {
      return withRetries(() => api.POST('/api/v1/connections/{connectionId}/pause', { params: { path: { connectionId: id } } }), CONNECTION_RETRIED);
    },

    async resumeConnection(id: string): Promise<Connection> {
      return withRetries(() => api.POST('/api/v1/connections/{connectionId}/resume', { params: { path: { connectionId: id } } }), CONNECTION_RETRIED);
    },

    /** Queues a sync now; IngestApiError 409 CONNECTION_NOT_ACTIVE when paused or failing (not retried). */
    async syncConnection(id: string): Promise<void> {
      await withRetries(() => api.POST('/api/v1/connections/{connectionId}/sync', { params: { path: { connectionId: id } } }), CONNECTION_RETRIED);
    },

    /** Deletes a connection; with `withData` the records it brought are deleted too, in the background. */
    async deleteConnection(id: string, options: { withData?: boolean } = {}): Promise<DeletedConnection> {
      return withRetries(() => api.DELETE('/api/v1/connections/{connectionId}', {
        params: { path: { connectionId: id }, query: { with_data: options.withData ? 'true' : 'false' } },
      }), CONNECTION_RETRIED);
    },

    /** Polls the batch until it is COMPLETE or FAILED (or `timeoutMs` passes: an Error). */
    async waitUntilComplete(batchId: string, wait: { intervalMs?: number; timeoutMs?: number; onProgress?: (batch: Batch) => void } = {}): Promise<Batch> {
      const deadline = Date.now() + (wait.timeoutMs ?? 10 * 60_000);
      for (;;) {
        const batch = await this.getBatch(batchId);
        wait.onProgress?.(batch);
        if (batch.status === 'COMPLETE' || batch.status === 'FAILED') return batch;
        if (Date.now() > deadline) throw new Error(`batch ${batchId} is still ${batch.status} after ${wait.timeoutMs ?? 600_000} ms`);
        await sleep(wait.intervalMs ?? 1000);
      }
    },
  };
}

export type IngestClient = ReturnType<typeof createIngestClient>;
