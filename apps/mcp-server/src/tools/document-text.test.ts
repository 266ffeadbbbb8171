import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { documentText, UnreadableDocumentError } from './document-text';

/** A one-page PDF with a text layer, built by hand (objects, then an xref table with their offsets). */
function pdfWith(text: string): Buffer {
  const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

async function docxWith(paragraph: string): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${paragraph}</w:t></w:r></w:p></w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer' });
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
});
