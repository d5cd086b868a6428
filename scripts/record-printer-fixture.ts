/**
 * Records a printer attribute fixture (test/fixtures/printers/*.json) from a vendor PPD: starts
 * ippeveprinter with the PPD (-P), asks it with `ipptool -tv ... get-printer-attributes.test`, and
 * converts the text with parseIpptoolAttributes. Needs cups-ipp-utils; PPDs for many models come
 * with Debian's foomatic-db-compressed-ppds:
 *   /usr/lib/cups/driver/foomatic-db-compressed-ppds cat <ppd uri> > model.ppd
 *   npx tsx scripts/record-printer-fixture.ts model.ppd test/fixtures/printers/vendor-model.json
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseIpptoolAttributes } from '../src/printing/translate/capabilities/ipptool-text.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';

const [ppd, output] = process.argv.slice(2);
if (!ppd || !output) {
  console.error('usage: record-printer-fixture.ts <file.ppd> <output.json>');
  process.exit(2);
}
const printer = await startIppEvePrinter({ name: 'Recorded Printer', formats: null, extraArgs: ['-P', ppd] });
try {
  const text = execFileSync('ipptool', ['-tv', printer.uri, 'get-printer-attributes.test'], {
    encoding: 'utf8',
  });
  const attributes = parseIpptoolAttributes(text);
  writeFileSync(output, `${JSON.stringify(attributes, null, 2)}\n`);
  console.log(`wrote ${Object.keys(attributes).length} attributes to ${output}`);
} finally {
  await printer.stop();
}
