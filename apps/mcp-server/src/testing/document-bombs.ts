// Document fixtures built at run time (never committed binaries): small PDFs and Word files, and the
// bombs of issue 23 (a zip that inflates hundreds of times, a PDF stream that inflates to 50 MB).
import { deflateSync } from 'node:zlib';
import JSZip from 'jszip';

/**
 * A PDF built by hand (objects, then an xref table with their offsets): `pages` pages, each showing
 * `text`, or with `stream` (Flate-compressed) as their content when given.
 */
export function pdfWith(text: string, options: { pages?: number; stream?: Buffer } = {}): Buffer {
  const pages = options.pages ?? 1;
  const plain = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const content = options.stream
    ? Buffer.concat([Buffer.from(`<< /Length ${options.stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), options.stream, Buffer.from('\nendstream', 'latin1')])
    : Buffer.from(`<< /Length ${plain.length} >>\nstream\n${plain}\nendstream`, 'latin1');
  // 1 catalog, 2 pages, 3 content, 4 font, then the pages.
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ')}] /Count ${pages} >>`),
    content,
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    ...Array.from({ length: pages }, () => Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>')),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const trailer = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
    + `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(trailer, 'latin1')]);
}

/** A PDF bomb: ~128 KB whose one content stream inflates to `mb` MB of text operators. */
export function pdfBomb(mb = 50): Buffer {
  const op = Buffer.from('BT /F1 12 Tf 72 720 Td (Exports are slow and it crashes) Tj ET\n');
  return pdfWith('', { stream: deflateSync(Buffer.alloc(mb * 1024 * 1024, op), { level: 9 }) });
}

/** A Word bomb: its document.xml holds `mb` MB of one-letter paragraphs, compressing several hundred times. */
export async function docxBomb(mb: number): Promise<Buffer> {
  const paragraph = '<w:p><w:r><w:t>a</w:t></w:r></w:p>';
  return docxWith(paragraph.repeat(Math.ceil((mb * 1024 * 1024) / paragraph.length)), { raw: true });
}

/**
 * The same archive with every declared uncompressed size in its central directory rewritten to its
 * compressed size: a bomb that lies about itself, for the worker's limits to catch.
 */
export function lyingAboutSizes(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    out.writeUInt32LE(out.readUInt32LE(at + 20), at + 24);
  }
  return out;
}

/** A Word document of one paragraph (or, with `raw`, of the given body XML). */
export async function docxWith(paragraph: string, options: { raw?: boolean } = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${options.raw ? paragraph : `<w:p><w:r><w:t>${paragraph}</w:t></w:r></w:p>`}</w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

