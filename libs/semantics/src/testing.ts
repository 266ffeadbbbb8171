import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible embeddings endpoint on 127.0.0.1 for tests, answering as OpenAI's API reference
 * documents `POST /v1/embeddings`: body `{ model, input: string[], encoding_format }`, answer
 * `{ object: "list", data: [{ object: "embedding", index, embedding }], model, usage }`. A text's vector is
 * deterministic (from a hash of the text and the model), so the same text always gets the same vector.
 */
export type FakeMode = 'ok' | 'rate-limited' | 'failing' | 'hanging';

export interface FakeEmbeddings {
  /** Base URL to give as EMBEDDINGS_URL: `http://127.0.0.1:<port>` (the server serves `/v1/embeddings`). */
  url: string;
  /** Each request received: its inputs, model and Authorization header. */
  requests: Array<{ input: string[]; model: string; authorization: string | undefined; path: string }>;
  /** How the next requests are answered; `times`: for that many, then `ok` again. */
  setMode(mode: FakeMode, times?: number): void;
  /** Dimensions of the vectors answered from now on. */
  setDims(dims: number): void;
  /** Seconds sent in Retry-After with a 429. */
  retryAfterSeconds: number;
  close(): Promise<void>;
}

/** The fake's vector of a text: `dims` values from SHA-256 of model and text, then counter blocks (not unit length: the client normalises). */
export function fakeVector(model: string, text: string, dims: number): number[] {
  const out: number[] = [];
  for (let block = 0; out.length < dims; block++) {
    const h = createHash('sha256').update(`${model}\u0000${block}\u0000${text}`).digest();
    for (let i = 0; i + 1 < h.length && out.length < dims; i += 2) out.push((h.readUInt16LE(i) - 32768) / 8192);
  }
  return out;
}

export async function startFakeEmbeddings(options: { dims?: number } = {}): Promise<FakeEmbeddings> {
  let dims = options.dims ?? 32;
  let mode: FakeMode = 'ok';
  let left = Infinity;
  const hanging = new Set<ServerResponse>();
  const requests: FakeEmbeddings['requests'] = [];

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !/\/v1\/embeddings$/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string | string[]; encoding_format?: string };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({ input, model: body.model, authorization: req.headers.authorization, path: req.url ?? '' });
    const current = left > 0 ? mode : 'ok';
    left--;
    if (current === 'hanging') {
      hanging.add(res);
      return;
    }
    if (current === 'rate-limited') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fake.retryAfterSeconds) })
        .end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }));
      return;
    }
    if (current === 'failing') {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'The server had an error' } }));
      return;
    }
    if (input.some((t) => typeof t !== 'string' || t === '')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'input must be non-empty strings' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      object: 'list',
      data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(body.model, text, dims) })),
      model: body.model,
      usage: { prompt_tokens: input.length, total_tokens: input.length },
    }));
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeEmbeddings = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    retryAfterSeconds: 1,
    setMode(m, times = Infinity) {
      mode = m;
      left = times;
    },
    setDims(d) {
      dims = d;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
