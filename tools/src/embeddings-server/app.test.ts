import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteEmbeddings, dot, REMOTE_DEFAULTS } from '@loupe/semantics';
import { createEmbeddingsApp, MAX_INPUTS } from './app';
import { loadUseLite, USE_LITE_MODEL } from './encoder';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createEmbeddingsApp(await loadUseLite()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = async (body: unknown) => {
  const response = await fetch(`${base}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe('the local embeddings server (Universal Sentence Encoder lite)', () => {
  it("serves Loupe's own client: alike sentences come out closer than unrelated ones, at unit length, 512 dimensions", async () => {
    const client = createRemoteEmbeddings({ url: `${base}/v1`, model: USE_LITE_MODEL, ...REMOTE_DEFAULTS });
    const [arrived, delivered, weather] = await client.embed([
      "my new card still hasn't arrived",
      'I am waiting for the card you mailed me to be delivered',
      'will it rain in Chicago tomorrow',
    ]);
    expect(client.dims).toBe(512);
    expect(dot(arrived!, delivered!)).toBeGreaterThan(dot(arrived!, weather!) + 0.2);
  });

  it('answers as OpenAI documents /v1/embeddings: one text or a list, floats or base64, usage in tokens', async () => {
    const one = await post({ model: USE_LITE_MODEL, input: 'freeze my card' });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ object: 'list', model: USE_LITE_MODEL, data: [{ object: 'embedding', index: 0 }] });
    expect(one.body.data[0].embedding).toHaveLength(512);
    expect(one.body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(one.body.usage.total_tokens).toBe(one.body.usage.prompt_tokens);
    const encoded = await post({ model: USE_LITE_MODEL, input: ['lock my card', 'freeze my card'], encoding_format: 'base64' });
    expect(encoded.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    // Little-endian float32, as OpenAI's base64 encoding is; the same text as the float answer above (alone then, in a batch here).
    const decoded = new Float32Array(Uint8Array.from(Buffer.from(encoded.body.data[1].embedding, 'base64')).buffer);
    expect(decoded).toHaveLength(512);
    const apart = Math.max(...Array.from(decoded, (x, d) => Math.abs(x - one.body.data[0].embedding[d])));
    expect(apart).toBeLessThan(1e-4);
    const models = await (await fetch(`${base}/v1/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: USE_LITE_MODEL, object: 'model' }] });
  });

  it('refuses what it cannot embed with an OpenAI-style error naming the parameter', async () => {
    const cases: Array<[unknown, number, string | null, RegExp]> = [
      [{ model: 'text-embedding-3-small', input: 'x' }, 404, 'model', /does not exist.*universal-sentence-encoder-lite/],
      [{ input: 'x' }, 400, 'model', /model/],
      [{ model: USE_LITE_MODEL }, 400, 'input', /text or a list of texts/],
      [{ model: USE_LITE_MODEL, input: [] }, 400, 'input', /at least one text/],
      [{ model: USE_LITE_MODEL, input: ['fine', '  '] }, 400, 'input[1]', /empty text/],
      [{ model: USE_LITE_MODEL, input: ['fine', [12, 40]] }, 400, 'input[1]', /token ids/],
      [{ model: USE_LITE_MODEL, input: Array.from({ length: MAX_INPUTS + 1 }, () => 'a') }, 400, 'input', /at most 2048/],
      [{ model: USE_LITE_MODEL, input: 'x', dimensions: 256 }, 400, 'dimensions', /512 dimensions/],
      [{ model: USE_LITE_MODEL, input: 'x', encoding_format: 'int8' }, 400, 'encoding_format', /encoding_format/],
      ['{"model": ', 400, null, /not valid JSON/],
    ];
    for (const [body, status, param, message] of cases) {
      const answer = await post(body);
      expect({ body, status: answer.status, param: answer.body.error?.param }).toEqual({ body, status, param });
      expect(answer.body.error.message).toMatch(message);
      expect(answer.body.error.type).toBe('invalid_request_error');
    }
  });
});
