// Reads one untrusted document in a worker thread (document-text.ts starts it with memory limits and
// kills it past its time limit): a PDF through unpdf (pdf.js), a Word .docx through mammoth.
// Plain JavaScript so that it runs as it is under tsx, vitest and node alike.
// In: workerData { kind: 'pdf' | 'docx', bytes: Uint8Array, maxPages, maxTextBytes }.
// Out: one message, { text } or { refused } (a sentence saying what is wrong with the document).
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

// On Linux a priority set with pid 0 is this thread's alone: the reader yields the CPU to the event
// loop of the service (and to PostgreSQL) on a busy machine. Elsewhere it may apply to the process, so only here.
if (process.platform === 'linux') {
  try {
    setPriority(0, 19);
  } catch {
    // not permitted: read at normal priority
  }
}

const { kind, bytes, maxPages, maxTextBytes } = workerData;
const MB = (n) => `${(n / 1048576).toFixed(1)} MB`;

class Refused extends Error {}

async function pdfText() {
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  if (pdf.numPages > maxPages) throw new Refused(`has ${pdf.numPages} pages; Loupe reads PDFs of at most ${maxPages} pages`);
  const pages = [];
  let size = 0;
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    const text = content.items.filter((item) => item.str != null).map((item) => item.str + (item.hasEOL ? '\n' : '')).join('');
    size += Buffer.byteLength(text, 'utf8');
    if (size > maxTextBytes) throw new Refused(`holds more than ${MB(maxTextBytes)} of text (reached by page ${n})`);
    pages.push(text);
  }
  return pages;
}

async function docxText() {
  const { default: mammoth } = await import('mammoth');
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
  if (Buffer.byteLength(value, 'utf8') > maxTextBytes) throw new Refused(`holds more than ${MB(maxTextBytes)} of text`);
  return value;
}

try {
  const text = kind === 'pdf' ? await pdfText() : await docxText();
  parentPort.postMessage({ text });
} catch (error) {
  parentPort.postMessage(error instanceof Refused ? { refused: error.message } : { failed: String(error?.message ?? error) });
}
