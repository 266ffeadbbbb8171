/** Dot product of two vectors of equal length (cosine for unit vectors). */
export function dot(a: Float32Array, b: Float32Array, bOffset = 0): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[bOffset + i]!;
  return s;
}

/** Scales `v` to unit length in place; a zero vector stays zero. Returns it. */
export function normalize<T extends Float32Array>(v: T): T {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

/** A vector as bytes for a bytea column (float32, little endian). */
export function vectorToBytes(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i]!, i * 4);
  return out;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const v = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(i * 4, true);
  return v;
}
