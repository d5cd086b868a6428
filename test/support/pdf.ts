/** Small real PDF documents for tests and benchmarks, made with pdf-lib. */
import { writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** Writes a PDF with `pages` pages, each saying its number, and returns its path. */
export async function writePdf(path: string, pages: number, title = 'PrintRelay test'): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i += 1) {
    const page = doc.addPage([595, 842]);
    page.drawText(`${title} - page ${i} of ${pages}`, { x: 50, y: 780, size: 18, font });
  }
  writeFileSync(path, await doc.save());
  return path;
}
