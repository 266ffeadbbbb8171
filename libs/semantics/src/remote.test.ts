import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteEmbeddings, embeddingsEndpoint, EmbeddingsError, retryAfterMs, type RemoteEmbeddingsOptions } from './remote';
import { fakeVector, startFakeEmbeddings, type FakeEmbeddings } from './testing';
import { startSemanticsThread } from './thread';
import { LEXICAL_DIMS } from './embed';
import { quantize } from './vector-index';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings({ dims: 24 });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.setMode('ok');
  fake.setDims(24);
  fake.requests.length = 0;
});

const options = (over: Partial<RemoteEmbeddingsOptions> = {}): RemoteEmbeddingsOptions => ({
  url: fake.url, model: 'fake-model', apiKey: 'sk-test', batchSize: 3, timeoutMs: 2_000, retries: 3, backoffMs: 10, ...over,
});

/** Records the waits asked for instead of waiting. */
function sleeps() {
  const asked: number[] = [];
  return { asked, sleep: (ms: number) => (asked.push(ms), Promise.resolve()) };
}

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('the OpenAI-compatible embeddings client', () => {
  it('finds the endpoint as OpenAI clients treat a base URL', () => {
    expect(embeddingsEndpoint('http://localhost:11434/v1')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsEndpoint('http://localhost:11434/v1/')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsEndpoint('https://api.openai.com')).toBe('https://api.openai.com/v1/embeddings');
    expect(embeddingsEndpoint('http://tei:8080/v1/embeddings')).toBe('http://tei:8080/v1/embeddings');
    expect(embeddingsEndpoint('http://gw.example/openai/embeddings')).toBe('http://gw.example/openai/embeddings');
  });

  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('2', 0)).toBe(2_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
    expect(retryAfterMs('soon', 0)).toBeUndefined();
  });

  it('asks in batches with the model, the key and float encoding, and gives unit vectors in the texts\' order', async () => {
    const client = createRemoteEmbeddings(options());
    expect(client.dims).toBeUndefined();
    const texts = ['card not arrived', 'card not working', 'refund please', 'export to csv', 'okta sign-in', 'slow dashboard', 'dark mode'];
    const vectors = await client.embed(texts);
    expect(fake.requests.map((r) => r.input.length)).toEqual([3, 3, 1]);
    expect(fake.requests.every((r) => r.model === 'fake-model' && r.authorization === 'Bearer sk-test' && r.path === '/v1/embeddings')).toBe(true);
    expect(client.dims).toBe(24);
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(24);
      expect(norm(v)).toBeCloseTo(1, 5);
      const raw = fakeVector('fake-model', texts[i]!, 24);
      const n = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
      expect(v[0]).toBeCloseTo(raw[0]! / n, 5);
    });
  });

  it('does not send empty texts: they get a zero vector of the model\'s dimensions', async () => {
    const client = createRemoteEmbeddings(options());
    const [a, b] = await client.embed(['  ', 'hello']);
    expect(fake.requests.flatMap((r) => r.input)).toEqual(['hello']);
    expect(a).toEqual(new Float32Array(24));
    expect(norm(b!)).toBeCloseTo(1, 5);
  });

  it('retries a 429 after the Retry-After it asks for', async () => {
    fake.setMode('rate-limited', 2);
    fake.retryAfterSeconds = 3;
    const { asked, sleep } = sleeps();
    const client = createRemoteEmbeddings(options(), { sleep });
    const [v] = await client.embed(['hello']);
    expect(v).toHaveLength(24);
    expect(fake.requests).toHaveLength(3);
    expect(asked).toEqual([3_000, 3_000]);
  });

  it('retries a 500 with exponential backoff, and fails after its retries', async () => {
    fake.setMode('failing', 2);
    const { asked, sleep } = sleeps();
    const client = createRemoteEmbeddings(options({ backoffMs: 100 }), { sleep });
    await client.embed(['hello']);
    expect(asked).toEqual([100, 200]);

    fake.setMode('failing');
    fake.requests.length = 0;
    await expect(client.embed(['hello'])).rejects.toThrow(/answered 500.*after 4 attempts/);
    expect(fake.requests).toHaveLength(4);
  });

  it('does not retry a 4xx other than 429', async () => {
    const client = createRemoteEmbeddings(options({ url: `${fake.url}/nowhere/embeddings` }), sleeps());
    await expect(client.embed(['hello'])).rejects.toThrow(/answered 404/);
  });

  it('gives up on a provider that hangs after its time limit and retries', async () => {
    fake.setMode('hanging');
    const client = createRemoteEmbeddings(options({ timeoutMs: 200, retries: 1 }), sleeps());
    await expect(client.embed(['hello'])).rejects.toBeInstanceOf(EmbeddingsError);
    expect(fake.requests).toHaveLength(2);
  });

  it('takes the dimensions from the first answer and refuses an answer of other dimensions', async () => {
    const client = createRemoteEmbeddings(options());
    await client.embed(['one']);
    fake.setDims(48);
    await expect(client.embed(['two'])).rejects.toThrow(/48 dimensions where the model gave 24/);
  });

  it('spaces its requests by the rate limit', async () => {
    let clock = 0;
    const asked: number[] = [];
    const client = createRemoteEmbeddings(options({ batchSize: 1, requestsPerMinute: 120 }), {
      now: () => clock,
      sleep: (ms) => {
        asked.push(ms);
        clock += ms;
        return Promise.resolve();
      },
    });
    await client.embed(['a', 'b', 'c']);
    expect(fake.requests).toHaveLength(3);
    expect(asked).toEqual([500, 500]);
  });
});

describe('the semantics thread with an embedding provider', () => {
  it('embeds with the provider\'s dimensions and the built-in lexical part, and searches by them', async () => {
    const thread = startSemanticsThread({ embeddings: options() });
    try {
      expect(await thread.version()).toBe(`remote:fake-model+lex${LEXICAL_DIMS}`);
      expect(fake.requests).toHaveLength(0);
      const info = await thread.describe();
      expect(info).toEqual({ version: `remote:fake-model+lex${LEXICAL_DIMS}`, dims: 24 + LEXICAL_DIMS, denseDims: 24 });
      const texts = ['the export to csv fails', 'sign-in with okta loops'];
      const out = await thread.run('embed', { texts, themes: ['exports', null] });
      expect(out.dims).toBe(24 + LEXICAL_DIMS);
      expect(out.vectors).toHaveLength(2 * out.dims);
      expect(out.keywords[0]).toContain('csv');
      const items = texts.map((_, i) => ({
        id: `src_${i}`, vector: quantize(out.vectors.subarray(i * out.dims, i * out.dims + out.denseDims)), product: 'p', type: 'email', nature: 'conversation', at: 0, projects: [],
      }));
      await thread.run('index-upsert', { collection: 'ws', items, fill: true });
      // The fake's vectors are a hash of the text: the same text is its own nearest neighbour.
      const found = await thread.run('index-search', { collection: 'ws', text: 'sign-in with okta loops', k: 1 });
      expect(found.hits.map((h) => h.id)).toEqual(['src_1']);
      // The second stage of that search takes the query's vector its first stage asked for: no second request.
      const asked = fake.requests.length;
      const reranked = await thread.run('rerank', { collection: 'ws', text: 'sign-in with okta loops', ids: ['src_1', 'src_0'], texts: [texts[1]!, texts[0]!], feedback: 1, beta: 2, words: true });
      expect(fake.requests).toHaveLength(asked);
      expect(reranked.feedback![0]).toBeGreaterThan(reranked.feedback![1]!);
      expect(reranked.words![0]).toBeCloseTo(1, 5);

      fake.setMode('failing');
      const down = await thread.run('index-search', { collection: 'ws', text: 'sign-in with okta loops', k: 1 });
      expect(down.hits).toEqual([]);
      expect(down.unavailable).toMatch(/answered 500/);
      // A provider that failed the search is not asked again by its second stage, which ranks by words alone.
      const failedAt = fake.requests.length;
      const byWords = await thread.run('rerank', { collection: 'ws', text: 'sign-in with okta loops', ids: ['src_0', 'src_1'], texts, feedback: 1, beta: 2, words: true });
      expect(fake.requests).toHaveLength(failedAt);
      expect(byWords.feedback).toBeUndefined();
      expect(byWords.words![1]).toBeGreaterThan(byWords.words![0]!);
    } finally {
      await thread.close();
    }
  });
});
