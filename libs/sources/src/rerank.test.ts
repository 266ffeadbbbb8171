import { describe, expect, it } from 'vitest';
import { RERANK, rerankTop, type Reranker } from './rerank';

const ranked = (n: number) => Array.from({ length: n }, (_, i) => ({ sourceId: `s${i}`, score: 1 / (i + 1), positions: [i] }));
const texts = async (top: readonly { sourceId: string }[]) => top.map((r) => `text of ${r.sourceId}`);

describe('the second stage of search', () => {
  it('lifts the second candidate when both second rankings put it first (reciprocal ranks: a nudge, not a jump), and keeps the order where they agree with the first', async () => {
    const scorer: Reranker = async (_q, candidates) => ({
      feedback: candidates.map((c) => (c.id === 's1' ? 1 : 0.5 - Number(c.id.slice(1)) / 100)),
      words: candidates.map((c) => (c.id === 's1' ? 1 : 0.5 - Number(c.id.slice(1)) / 100)),
    });
    const out = await rerankTop(ranked(6), 'q', texts, scorer);
    expect(out.map((r) => r.sourceId)).toEqual(['s1', 's0', 's2', 's3', 's4', 's5']);
  });

  it('reorders only the first RERANK.depth: a later page is the one the first ranking gave', async () => {
    const n = RERANK.depth + 20;
    const seen: number[] = [];
    const reversed: Reranker = async (_q, candidates) => {
      seen.push(candidates.length);
      return { words: candidates.map((c) => Number(c.id.slice(1))), feedback: candidates.map((c) => Number(c.id.slice(1))) };
    };
    const out = await rerankTop(ranked(n), 'q', texts, reversed);
    expect(seen).toEqual([RERANK.depth, RERANK.depth]);
    expect(out.slice(RERANK.depth).map((r) => r.sourceId)).toEqual(ranked(n).slice(RERANK.depth).map((r) => r.sourceId));
    expect(new Set(out.slice(0, RERANK.depth).map((r) => r.sourceId))).toEqual(new Set(ranked(n).slice(0, RERANK.depth).map((r) => r.sourceId)));
    expect(out[0]!.sourceId).not.toBe('s0');
  });

  it('puts candidates without a vector last in the feedback ranking, and works on words alone when the query has no vector', async () => {
    const noVector: Reranker = async (_q, candidates) => ({ feedback: candidates.map((c) => (c.id === 's0' ? NaN : 0.1)), words: candidates.map(() => 0) });
    expect((await rerankTop(ranked(3), 'q', texts, noVector)).map((r) => r.sourceId)).toEqual(['s1', 's0', 's2']);
    const wordsOnly: Reranker = async (_q, candidates) => ({ words: candidates.map((c) => (c.id === 's2' ? 1 : 0)) });
    expect((await rerankTop(ranked(3), 'q', texts, wordsOnly))[0]!.sourceId).toBe('s0');
    expect(await rerankTop(ranked(1), 'q', texts, wordsOnly)).toEqual(ranked(1));
  });

  /** Scores 1 for the candidate `id`, 0 for the others, wherever the pass puts it. */
  const favouring = (id: string) => (candidates: Array<{ id: string }>) => candidates.map((c) => (c.id === id ? 1 : 0));

  it('fuses the workspace\'s own vocabulary when the scorer has it, as one more ranking', async () => {
    const third = (latent?: string): Reranker => async (_q, candidates, again) => ({
      feedback: favouring('none')(candidates), ...(again ? {} : { words: favouring('s2')(candidates) }), ...(latent ? { latent: favouring(latent)(candidates) } : {}),
    });
    expect((await rerankTop(ranked(3), 'q', texts, third())).map((r) => r.sourceId)).toEqual(['s0', 's1', 's2']);
    expect((await rerankTop(ranked(3), 'q', texts, third('s2'))).map((r) => r.sourceId)).toEqual(['s0', 's2', 's1']);
  });

  it('runs twice: the second pass starts from the first pass\'s order, so its feedback comes from the first pass\'s leaders, and reuses the word scores', async () => {
    const calls: Array<{ ids: string[]; again: boolean }> = [];
    const scorer: Reranker = async (_q, candidates, again) => {
      calls.push({ ids: candidates.map((c) => c.id), again: again === true });
      return { feedback: favouring('s2')(candidates), ...(again ? {} : { words: favouring('s2')(candidates) }) };
    };
    const out = await rerankTop(ranked(3), 'q', texts, scorer);
    expect(calls).toEqual([{ ids: ['s0', 's1', 's2'], again: false }, { ids: ['s0', 's2', 's1'], again: true }]);
    // After one pass s2 is second; the second pass, with the first pass's order as its start and the reused words, puts it first.
    expect(out.map((r) => r.sourceId)).toEqual(['s2', 's0', 's1']);
  });

  it('asks a scorer that ran the second pass itself (the search thread, `again`) once, and ranks as the two calls would', async () => {
    const twoCalls: Reranker = async (_q, candidates, again) => ({ feedback: favouring('s2')(candidates), ...(again ? {} : { words: favouring('s2')(candidates) }) });
    let asked = 0;
    const oneCall: Reranker = async (_q, candidates) => {
      asked++;
      const once = [0, 2, 1];
      return { feedback: favouring('s2')(candidates), words: favouring('s2')(candidates), again: { order: once, feedback: favouring('s2')(once.map((i) => candidates[i]!)) } };
    };
    const expected = (await rerankTop(ranked(3), 'q', texts, twoCalls)).map((r) => r.sourceId);
    expect((await rerankTop(ranked(3), 'q', texts, oneCall)).map((r) => r.sourceId)).toEqual(expected);
    expect(asked).toBe(1);
  });

  it('gives the scorer each candidate\'s text', async () => {
    const got: string[] = [];
    await rerankTop(ranked(2), 'the query', texts, async (q, candidates, again) => (got.push(q, ...candidates.map((c) => c.text)), again ? {} : { words: [0, 0] }));
    expect(got).toEqual(['the query', 'text of s0', 'text of s1', 'the query', 'text of s0', 'text of s1']);
  });
});
