import type { LatentTerms } from './latent';

/**
 * A vocabulary (latentTerms) as bytes, to be stored and read by another process: a header (magic,
 * version, rank, terms, the terms' bytes), the terms as UTF-8 separated by newlines (a stem holds
 * none), then at a 4-byte boundary each term's IDF and its `rank` directions as float32, little-endian.
 */
const MAGIC = 0x4c4c5431; // "LLT1"
const HEADER_BYTES = 16;

export function encodeLatentTerms(terms: LatentTerms): Uint8Array {
  const names: string[] = [];
  for (const [term, j] of terms.index) names[j] = term;
  const text = new TextEncoder().encode(names.join('\n'));
  const numbersAt = HEADER_BYTES + Math.ceil(text.byteLength / 4) * 4;
  const count = names.length;
  const bytes = new Uint8Array(numbersAt + 4 * count * (1 + terms.rank));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, terms.rank, true);
  view.setUint32(8, count, true);
  view.setUint32(12, text.byteLength, true);
  bytes.set(text, HEADER_BYTES);
  let at = numbersAt;
  for (let j = 0; j < count; j++, at += 4) view.setFloat32(at, terms.idf[j]!, true);
  for (const value of terms.directions) {
    view.setFloat32(at, value, true);
    at += 4;
  }
  return bytes;
}

export function decodeLatentTerms(bytes: Uint8Array): LatentTerms {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) throw new Error('not an encoded vocabulary');
  const rank = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  const textBytes = view.getUint32(12, true);
  const numbersAt = HEADER_BYTES + Math.ceil(textBytes / 4) * 4;
  if (bytes.byteLength !== numbersAt + 4 * count * (1 + rank)) throw new Error('an encoded vocabulary of the wrong length');
  const names = count ? new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + textBytes)).split('\n') : [];
  if (names.length !== count) throw new Error('an encoded vocabulary whose terms do not match its count');
  const index = new Map(names.map((term, j) => [term, j]));
  const idf = new Float64Array(count);
  let at = numbersAt;
  for (let j = 0; j < count; j++, at += 4) idf[j] = view.getFloat32(at, true);
  const directions = new Float32Array(count * rank);
  for (let i = 0; i < directions.length; i++, at += 4) directions[i] = view.getFloat32(at, true);
  return { rank, index, idf, directions };
}
