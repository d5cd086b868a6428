/**
 * The one-page PDF that carries a registration code to the user at the printer: a title, the
 * code in large type and how to claim it. Pure: builds the bytes (PDF 1.4, Helvetica, A4, a
 * correct cross-reference table); the caller writes them where it wants.
 */

/** What the page says. */
export interface RegistrationSheet {
  code: string;
  /** Where the user claims the code (the portal page URL or path). */
  claimAt: string;
  /** Printer name shown on the page. */
  printerName: string;
}

/** Escapes text for a PDF literal string (ASCII only; other characters become '?'). */
function pdfText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').replace(/([\\()])/g, '\\$1');
}

function contentStream(sheet: RegistrationSheet): string {
  const lines: [number, number, string][] = [
    [20, 760, 'PrintRelay pull printing: register your card'],
    [11, 730, `Printer: ${sheet.printerName}`],
    [48, 640, sheet.code],
    [11, 600, 'Sign in to the portal and enter this code to link your card:'],
    [11, 584, sheet.claimAt],
    [11, 560, 'The code is valid for 24 hours and can be used once.'],
  ];
  return lines.map(([size, y, text]) => `BT /F1 ${size} Tf 56 ${y} Td (${pdfText(text)}) Tj ET`).join('\n');
}

/** Builds the PDF bytes of a registration sheet. */
export function registrationSheetPdf(sheet: RegistrationSheet): Buffer {
  const stream = contentStream(sheet);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
