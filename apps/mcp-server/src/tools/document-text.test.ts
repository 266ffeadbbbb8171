import { describe, expect, it } from 'vitest';
import { docxBomb, docxWith, lyingAboutSizes, pdfBomb, pdfWith } from '../testing/document-bombs';
import { createDocumentReader, DOCUMENT_LIMITS, documentText, UnreadableDocumentError } from './document-text';

/**
 * Runs `fn` and counts the turns a 5 ms timer got meanwhile: a document read on the event loop gets
 * none while it parses, one read in a worker thread leaves the loop turning.
 */
async function turnsDuring<T>(fn: () => Promise<T>): Promise<{ turns: number; outcome: T | Error }> {
  let turns = 0;
  const timer = setInterval(() => turns++, 5);
  const outcome = await fn().catch((e: Error) => e);
  clearInterval(timer);
  return { turns, outcome };
}

describe('documentText', () => {
  it('reads the text layer of a PDF, one section per page', async () => {
    expect(await documentText(pdfWith('Exports to Excel are slow'), 'interview.pdf')).toBe('## Page 1\n\nExports to Excel are slow');
  });

  it('reads a Word document', async () => {
    expect(await documentText(await docxWith('We need single sign-on.'), 'notes.docx')).toBe('We need single sign-on.');
  });

  it('keeps text files as they are and refuses what it cannot read', async () => {
    expect(await documentText(Buffer.from('# Survey\nResults'), 'survey.md')).toBe('# Survey\nResults');
    await expect(documentText(Buffer.from([0, 1, 2, 255]), 'deck.key')).rejects.toBeInstanceOf(UnreadableDocumentError);
    await expect(documentText(Buffer.from('%PDF-1.4 broken'), 'broken.pdf')).rejects.toThrow(/not a readable PDF/);
  });

  // Issue 23 item 1: a small upload that inflates to tens of MB used to be parsed on the event loop
  // of the one process (a 45 MB document.xml ran it out of heap; 10 MB stalled every request 8 s).
  describe('document bombs cost their caller a refusal, never the service', () => {
    it('a Word document whose zip inflates hundreds of times is refused from its directory, at once', async () => {
      const bomb = await docxBomb(45);
      expect(bomb.length).toBeLessThan(300 * 1024);
      const outcome = await documentText(bomb, 'bomb.docx').catch((e: Error) => e);
      expect(outcome).toBeInstanceOf(UnreadableDocumentError);
      expect((outcome as Error).message).toMatch(/^bomb\.docx inflates word\/document\.xml \d+ times .*zip bomb/);
    }, 60_000);

    it('a Word bomb that lies about its sizes passes the directory check and is still refused off the event loop', async () => {
      const bomb = lyingAboutSizes(await docxBomb(12));
      const { turns, outcome } = await turnsDuring(() => documentText(bomb, 'liar.docx'));
      expect(outcome).toBeInstanceOf(UnreadableDocumentError);
      expect((outcome as Error).message).toMatch(/^liar\.docx /);
      expect(turns).toBeGreaterThan(0);
    }, 60_000);

    it('a PDF whose content stream inflates to 50 MB is stopped by a limit, the event loop free meanwhile', async () => {
      const bomb = pdfBomb(50);
      expect(bomb.length).toBeLessThan(256 * 1024);
      const { turns, outcome } = await turnsDuring(() => documentText(bomb, 'bomb.pdf'));
      expect(outcome).toBeInstanceOf(UnreadableDocumentError);
      expect((outcome as Error).message).toMatch(/^bomb\.pdf (took longer than|needs more than|holds more than)/);
      expect(turns).toBeGreaterThan(0);
    }, 60_000);

    it('the reader thread is ended past its time limit and its heap limit, and the next document is read', async () => {
      const bomb = pdfBomb(50);
      const quick = createDocumentReader({ ...DOCUMENT_LIMITS, timeoutMs: 300 });
      await expect(quick(bomb, 'bomb.pdf')).rejects.toThrow(/^bomb\.pdf took longer than 0\.3 s to read, so Loupe stopped/);
      const small = createDocumentReader({ ...DOCUMENT_LIMITS, heapMb: 48, timeoutMs: 30_000 });
      await expect(small(bomb, 'bomb.pdf')).rejects.toThrow(/^bomb\.pdf needs more than 48 MB of memory to read, so Loupe stopped/);
      expect(await small(pdfWith('Still reading'), 'next.pdf')).toBe('## Page 1\n\nStill reading');
    }, 60_000);

    it('callers that find no free reader slot within the deadline are told that Loupe is busy', async () => {
      const bomb = pdfBomb(50);
      const one = createDocumentReader({ ...DOCUMENT_LIMITS, concurrent: 1, timeoutMs: 1500 });
      // The two that find no free slot wait for one no longer than the reader's deadline, then hear that Loupe is busy.
      const outcomes = await Promise.all([1, 2, 3].map((i) => one(bomb, `b${i}.pdf`).catch((e: Error) => ({ message: e.message }))));
      expect((outcomes as Array<{ message: string }>).map((o) => o.message.replace(/^b\d\.pdf /, ''))).toEqual([
        expect.stringMatching(/^took longer than 1\.5 s/),
        expect.stringMatching(/^could not be read now: Loupe is busy/),
        expect.stringMatching(/^could not be read now: Loupe is busy/),
      ]);
    }, 60_000);

    it('a PDF with more pages than Loupe reads is refused', async () => {
      await expect(documentText(pdfWith('Page', { pages: 1001 }), 'long.pdf')).rejects.toThrow(/^long\.pdf has 1001 pages; Loupe reads PDFs of at most 1000 pages$/);
      expect(await documentText(pdfWith('Same page', { pages: 2 }), 'two.pdf')).toBe('## Page 1\n\nSame page\n\n## Page 2\n\nSame page');
    }, 60_000);
  });
});
