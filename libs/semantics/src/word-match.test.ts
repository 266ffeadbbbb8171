import { describe, expect, it } from 'vitest';
import { loadWordVectors } from './model';
import { createWordMatcher } from './word-match';
import { quantize, VectorIndex } from './vector-index';
import { createEmbedder } from './embed';

const model = loadWordVectors();
const matcher = createWordMatcher(model);

describe('the word matcher (second stage of search)', () => {
  it('scores every query word found as 1 and a text sharing nothing as 0', () => {
    const [same, none] = matcher.scores('my card has not arrived', ['The card has not arrived yet, my friend', 'zzz qqq']);
    expect(same).toBeCloseTo(1, 5);
    expect(none).toBe(0);
  });

  it('tells close intents apart by the word that differs, the rarest word weighing most', () => {
    const [arrived, working] = matcher.scores('my new card still has not arrived', [
      'when will my new card arrive in the mail',
      'my new card is not working at the shop',
    ]);
    expect(arrived).toBeGreaterThan(working!);
  });

  it('counts a related word (a neighbour in the word-vector space) more than an unrelated one, less than the word itself', () => {
    const [itself, related, unrelated] = matcher.scores('refund', ['refund', 'reimbursement', 'giraffe']);
    expect(itself).toBeCloseTo(1, 5);
    expect(related).toBeGreaterThan(unrelated!);
    expect(related).toBeLessThan(1);
  });

  it('matches forms of a word (stems) and words the model does not know only exactly', () => {
    const [forms, product, otherProduct] = matcher.scores('exporting reports from Zorbly', ['export the report', 'Zorbly', 'Quibbly']);
    expect(forms).toBeGreaterThan(0.3);
    expect(product).toBeGreaterThan(otherProduct!);
    expect(matcher.scores('', ['anything'])).toEqual([0]);
  });
});

describe('pseudo-relevance feedback in the index', () => {
  const embedder = createEmbedder(model);
  const texts = [
    'my card was declined at the store', 'the card got declined when paying', 'payment declined on my card again',
    'how do I change my pin', 'set a new pin for my card', 'book a flight to paris', 'the weather in paris tomorrow',
  ];
  const index = new VectorIndex(embedder.denseDims);
  index.upsert(texts.map((t, i) => ({ id: `s${i}`, vector: quantize(embedder.embed(t).slice(0, embedder.denseDims)), product: 'p', type: 'email', nature: 'evidence', at: 0, projects: [] })));

  it('moves the query toward its first results: an item like them scores higher than without feedback', () => {
    const query = embedder.embed('card declined').slice(0, embedder.denseDims);
    const ids = ['s0', 's1', 's2', 's3', 's6'];
    const plain = index.feedbackScores(query, ids, 0, 0);
    const fed = index.feedbackScores(query, ids, 2, 2);
    // s2 is like the first two; the weather is like neither.
    expect(fed[2]! - fed[4]!).toBeGreaterThan(plain[2]! - plain[4]!);
    expect(index.feedbackScores(query, ['missing'], 2, 2)[0]).toBeNaN();
  });
});
