import mammoth from 'mammoth';
import { extractText } from 'unpdf';

export class UnreadableDocumentError extends Error {
  override name = 'UnreadableDocumentError';
}

const TEXT_FILE = /\.(md|markdown|txt|text|csv|tsv|json|html?|xml|ya?ml|log|vtt|srt)$/i;

/**
 * The text of an uploaded document, as markdown: text files as they are (UTF-8), PDF through unpdf
 * (pdf.js) with one section per page, Word (.docx) through mammoth. Anything else is refused.
 */
export async function documentText(bytes: Buffer, filename: string, mimeType = ''): Promise<string> {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-' || /\.pdf$/i.test(filename) || mimeType === 'application/pdf') {
    try {
      const { text } = await extractText(new Uint8Array(bytes), { mergePages: false });
      const pages = text.map((t, i) => `## Page ${i + 1}\n\n${t.trim()}`).filter((p) => !/^## Page \d+\n\n$/.test(p));
      if (!pages.join('').replace(/## Page \d+/g, '').trim()) throw new UnreadableDocumentError(`${filename} has no text layer (a scanned PDF?)`);
      return pages.join('\n\n');
    } catch (error) {
      if (error instanceof UnreadableDocumentError) throw error;
      throw new UnreadableDocumentError(`${filename} is not a readable PDF (${(error as Error).message})`);
    }
  }
  if (/\.docx$/i.test(filename) || mimeType.includes('officedocument.wordprocessingml')) {
    try {
      const { value } = await mammoth.extractRawText({ buffer: bytes });
      if (!value.trim()) throw new UnreadableDocumentError(`${filename} has no text`);
      return value.trim();
    } catch (error) {
      if (error instanceof UnreadableDocumentError) throw error;
      throw new UnreadableDocumentError(`${filename} is not a readable Word document (${(error as Error).message})`);
    }
  }
  const text = bytes.toString('utf8');
  if ((TEXT_FILE.test(filename) || mimeType.startsWith('text/')) && !text.includes('\u0000') && !text.includes('\ufffd')) return text;
  throw new UnreadableDocumentError(`${filename} is not a format Loupe reads (PDF, Word .docx, markdown, plain text, CSV, JSON, HTML, subtitles)`);
}
