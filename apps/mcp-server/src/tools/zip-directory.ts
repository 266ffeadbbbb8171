/** What a zip's central directory declares, read without inflating anything. */
export interface ZipEntrySizes {
  name: string;
  compressed: number;
  uncompressed: number;
}

export class ZipDirectoryError extends Error {
  override name = 'ZipDirectoryError';
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const MAX_COMMENT = 0xffff;

/**
 * The entries of a zip's central directory (name, compressed and uncompressed size), as the file
 * declares them: a few reads per entry, no decompression. ZIP64 archives (over 4 GB or 65,535
 * entries) are refused: a Word document within our 50 MB upload limit never needs one.
 */
export function zipDirectory(bytes: Buffer, maxEntries: number): ZipEntrySizes[] {
  const floor = Math.max(0, bytes.length - 22 - MAX_COMMENT);
  let end = -1;
  for (let at = bytes.length - 22; at >= floor; at--) {
    if (bytes.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ZipDirectoryError('is not a zip archive (no end of central directory)');
  const count = bytes.readUInt16LE(end + 10);
  const size = bytes.readUInt32LE(end + 12);
  const offset = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new ZipDirectoryError('is a ZIP64 archive, which a Word document never needs');
  if (count > maxEntries) throw new ZipDirectoryError(`holds ${count} files; a Word document Loupe reads holds at most ${maxEntries}`);
  if (offset + size > end) throw new ZipDirectoryError('has a central directory that points outside the file');
  const entries: ZipEntrySizes[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new ZipDirectoryError('has a damaged central directory');
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      compressed: bytes.readUInt32LE(at + 20),
      uncompressed: bytes.readUInt32LE(at + 24),
      name: bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

export interface ZipBombLimits {
  /** Sum of the declared uncompressed sizes. */
  maxUncompressedBytes: number;
  /** Uncompressed ÷ compressed of one entry, for entries over 1 MB uncompressed. */
  maxRatio: number;
  maxEntries: number;
}

/**
 * Why this archive is refused before anything inflates it (a zip bomb: tiny compressed, huge
 * inflated), or undefined when its declared sizes are within the limits. Declared sizes can lie;
 * the worker's memory and time limits catch a liar (document-text.ts).
 */
export function zipBombReason(bytes: Buffer, limits: ZipBombLimits): string | undefined {
  let entries: ZipEntrySizes[];
  try {
    entries = zipDirectory(bytes, limits.maxEntries);
  } catch (error) {
    if (error instanceof ZipDirectoryError) return error.message;
    throw error;
  }
  let total = 0;
  for (const e of entries) {
    total += e.uncompressed;
    const ratio = e.uncompressed / Math.max(e.compressed, 1);
    if (e.uncompressed > 1024 * 1024 && ratio > limits.maxRatio) {
      return `inflates ${e.name.slice(0, 100)} ${Math.round(ratio)} times (${mb(e.compressed)} to ${mb(e.uncompressed)}); Loupe reads at most ${limits.maxRatio} times (a zip bomb?)`;
    }
  }
  if (total > limits.maxUncompressedBytes) return `inflates to ${mb(total)}; Loupe reads Word documents of at most ${mb(limits.maxUncompressedBytes)} uncompressed`;
  return undefined;
}

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
