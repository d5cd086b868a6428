/**
 * Child of document-sent-rule.test.ts: submits one document to the printer at PRINTER_URI through
 * IppBackend (Create-Job + Send-Document) or IppClient.printJob (MODE=print-job), and SIGKILLs
 * itself inside the callback CALLBACK names (`sent`, the default, or `flushed`); with
 * FROM_MEMORY=1 the document's bytes go from memory (`documentBytes`, as the agent sends a small
 * document it kept from the download) instead of from the file. Whatever the
 * printer has then is all it ever gets. It writes the callback's name to stdout (synchronously)
 * just before dying, so the test knows the callback ran.
 */
import { readFileSync, writeSync } from 'node:fs';
import { createLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';

const uri = process.env.PRINTER_URI as string;
const documentPath = process.env.DOCUMENT_PATH as string;
const jobName = process.env.JOB_NAME as string;
const logger = createLogger({ level: 'silent', pretty: false });

const callback = process.env.CALLBACK ?? 'sent';
const dieNow = () => {
  writeSync(1, `${callback}\n`);
  process.kill(process.pid, 'SIGKILL');
};

const backend = new IppBackend(uri, { logger });
const job = {
  documentPath,
  ...(process.env.FROM_MEMORY === '1' ? { documentBytes: readFileSync(documentPath) } : {}),
  documentFormat: 'text/plain',
  jobName,
  userName: 'sent-rule',
  jobAttributes: [],
  ...(callback === 'flushed' ? { onDocumentFlushed: dieNow } : { onDocumentSent: dieNow }),
};
if (process.env.MODE === 'print-job') {
  await backend.ipp.printJob(job);
} else {
  await backend.submit({ ...job, ticket: { copies: 1 } });
}
writeSync(1, `answered without the ${callback} callback\n`);
process.exit(0);
