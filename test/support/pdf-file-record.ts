/** The file record of an emulator job whose document is the PDF `content` stored at `path`. */
import { createHash } from 'node:crypto';

export function pdfFileRecord(path: string, content: Buffer | string, name: string) {
  return {
    path,
    size: content.length,
    sha256: createHash('sha256').update(content).digest('hex'),
    extension: 'pdf',
    contentType: 'application/pdf',
    name,
  };
}
