import { Worker } from 'node:worker_threads';
import { createSlots } from '@loupe/http';
import { zipBombReason } from './zip-directory';

export class UnreadableDocumentError extends Error {
  override name = 'UnreadableDocumentError';
}

/**
 * How much an untrusted document may cost. PDF and Word files are parsed in a worker thread of their
 * own with a heap limit, at most `concurrent` at once per process, and a caller hears back within
 * `timeoutMs` of asking (waiting for a slot included: the worker is killed at the deadline); a Word
 * file's zip directory is checked before mammoth sees it. The text a document yields is capped like
 * add_source's text (4 MB).
 */
export interface DocumentLimits {
  timeoutMs: number;
  /** The worker's old-generation heap (resourceLimits.maxOldGenerationSizeMb). */
  heapMb: number;
  concurrent: number;
  maxPdfPages: number;
  maxTextBytes: number;
  zip: { maxUncompressedBytes: number; maxRatio: number; maxEntries: number };
}

export const DOCUMENT_LIMITS: DocumentLimits = {
  timeoutMs: 4000,
  heapMb: 192,
  concurrent: 2,
  maxPdfPages: 1000,
  maxTextBytes: 4 * 1024 * 1024,
  zip: { maxUncompressedBytes: 64 * 1024 * 1024, maxRatio: 100, maxEntries: 2000 },
};

const TEXT_FILE = /\.(md|markdown|txt|text|csv|tsv|json|html?|xml|ya?ml|log|vtt|srt)$/i;
const WORKER = new URL('./document-worker.mjs', import.meta.url);

export type DocumentText = (bytes: Buffer, filename: string, mimeType?: string) => Promise<string>;

type WorkerAnswer = { text: string | string[] } | { refused: string } | { failed: string };

/**
 * The text of uploaded documents, as markdown: text files as they are (UTF-8), PDF through unpdf
 * (pdf.js) with one section per page, Word (.docx) through mammoth; anything else is refused. PDF
 * and Word are read off the event loop, within `limits`: a document bomb costs its caller a tool
 * error, never the service its memory or its responsiveness.
 */
export function createDocumentReader(limits: DocumentLimits = DOCUMENT_LIMITS): DocumentText {
  const pool = createSlots(limits.concurrent);

  async function inWorker(kind: 'pdf' | 'docx', bytes: Buffer, filename: string): Promise<WorkerAnswer> {
    // One deadline for waiting and reading: a caller hears back within timeoutMs, however busy.
    const arrived = performance.now();
    const busy = () => new UnreadableDocumentError(`${filename} could not be read now: Loupe is busy reading other documents. Try again in a moment`);
    if (!(await pool.take(limits.timeoutMs))) throw busy();
    const waited = performance.now() - arrived;
    const timeoutMs = Math.max(1, limits.timeoutMs - waited);
    try {
      return await new Promise<WorkerAnswer>((resolve, reject) => {
        const copy = new Uint8Array(bytes);
        const worker = new Worker(WORKER, {
          workerData: { kind, bytes: copy, maxPages: limits.maxPdfPages, maxTextBytes: limits.maxTextBytes },
          transferList: [copy.buffer],
          // Plain node: the worker is JavaScript, and the parent's loaders (tsx, vitest) are not needed there.
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
          stdout: true,
          stderr: true,
        });
        // pdf.js warns on stdout about fonts and the like: read and dropped.
        worker.stdout.resume();
        worker.stderr.resume();
        let settled = false;
        const settle = (fn: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          fn();
          void worker.terminate();
        };
        const timer = setTimeout(() => settle(() => reject(waited > limits.timeoutMs / 4 ? busy() : new UnreadableDocumentError(
          `${filename} took longer than ${limits.timeoutMs / 1000} s to read, so Loupe stopped (a very large or crafted file?)`,
        ))), timeoutMs);
        worker.once('message', (answer: WorkerAnswer) => settle(() => resolve(answer)));
        worker.once('error', (error: Error & { code?: string }) => settle(() => reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new UnreadableDocumentError(`${filename} needs more than ${limits.heapMb} MB of memory to read, so Loupe stopped (a very large or crafted file?)`)
            : error,
        )));
        worker.once('exit', (code) => settle(() => reject(new Error(`the document reader stopped (exit code ${code}) before answering`))));
      });
    } finally {
      pool.give();
    }
  }

  return async function documentText(bytes, filename, mimeType = '') {
    if (bytes.subarray(0, 5).toString('latin1') === '%PDF-' || /\.pdf$/i.test(filename) || mimeType === 'application/pdf') {
      const answer = await inWorker('pdf', bytes, filename);
      if ('refused' in answer) throw new UnreadableDocumentError(`${filename} ${answer.refused}`);
      if ('failed' in answer) throw new UnreadableDocumentError(`${filename} is not a readable PDF (${answer.failed})`);
      const pages = (answer.text as string[]).map((t, i) => `## Page ${i + 1}\n\n${t.trim()}`).filter((p) => !/^## Page \d+\n\n$/.test(p));
      if (!pages.join('').replace(/## Page \d+/g, '').trim()) throw new UnreadableDocumentError(`${filename} has no text layer (a scanned PDF?)`);
      return pages.join('\n\n');
    }
    if (/\.docx$/i.test(filename) || mimeType.includes('officedocument.wordprocessingml')) {
      const bomb = zipBombReason(bytes, limits.zip);
      if (bomb) throw new UnreadableDocumentError(`${filename} ${bomb}`);
      const answer = await inWorker('docx', bytes, filename);
      if ('refused' in answer) throw new UnreadableDocumentError(`${filename} ${answer.refused}`);
      if ('failed' in answer) throw new UnreadableDocumentError(`${filename} is not a readable Word document (${answer.failed})`);
      const text = (answer.text as string).trim();
      if (!text) throw new UnreadableDocumentError(`${filename} has no text`);
      return text;
    }
    const text = bytes.toString('utf8');
    if ((TEXT_FILE.test(filename) || mimeType.startsWith('text/')) && !text.includes('\u0000') && !text.includes('\ufffd')) return text;
    throw new UnreadableDocumentError(`${filename} is not a format Loupe reads (PDF, Word .docx, markdown, plain text, CSV, JSON, HTML, subtitles)`);
  };
}

let processReader: DocumentText | undefined;
/** The process's default reader (DOCUMENT_LIMITS), for callers not given one. */
export const documentText: DocumentText = (bytes, filename, mimeType) => (processReader ??= createDocumentReader())(bytes, filename, mimeType);
