/** Dot product of two vectors of equal length (cosine for unit vectors). */
export function dot(a: Float32Array, b: Float32Array, bOffset = 0): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[bOffset + i]!;
  return s;
}

/** a[at…] · b[bt…] over `dims`, in four sums (the hot loop of clustering and of the index's tree; the JIT does not vectorise). */
export function dotAt(a: Float32Array, at: number, b: Float32Array, bt: number, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (; d + 3 < dims; d += 4) {
    s0 += a[at + d]! * b[bt + d]!;
    s1 += a[at + d + 1]! * b[bt + d + 1]!;
    s2 += a[at + d + 2]! * b[bt + d + 2]!;
    s3 += a[at + d + 3]! * b[bt + d + 3]!;
  }
  for (; d < dims; d++) s0 += a[at + d]! * b[bt + d]!;
  return s0 + s1 + s2 + s3;
}

/** A copy of a typed array in a new one of `size` elements (the rest zero). */
export function resized<T extends Int8Array | Uint8Array | Int32Array | Float32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a.subarray(0, Math.min(a.length, size)));
  return b;
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
