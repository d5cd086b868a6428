/**
 * PrintJob on the wire: validates the call (codes 4, 5, 6, 7, 8), starts the release and writes
 * the response itself on the raw Node response (Fastify's reply is hijacked) so the stream is
 * HTTP chunked coding with a trailer: headers with X-FMP-ProcId (and X-FMP-ProgressType: Pages
 * with Progress=1), one chunk per progress line (`n/total` CRLF, the CRLF counted in the chunk
 * size), a chunk with the in-band result line, the zero chunk and the trailer X-FMP-Return (plus
 * X-FMP-ErrText, X-FMP-OSError, X-FMP-OSErrText on failure), all declared in `Trailer`. With
 * Progress=0 only the result is written, when printing ended. A client that hangs up stops
 * reading; the print itself goes on.
 */
import type { FastifyReply } from 'fastify';
import { TPFM_HEADERS } from '../../../protocol/tpfm-codes.js';
import { formatProgressChunk, formatResultLine } from '../../../protocol/tpfm-progress.js';
import { printerSupports } from '../held-jobs/pull-queue.js';
import type { PrintRelease, PrintUpdate } from './tpfm-print-process.js';
import type { TpfmServices } from '../pull-services.js';
import { heldJob, namedPrinter, type TpfmCall } from './tpfm-commands.js';
import { failureHeaders, flagParam, intParam, TpfmFailure } from './tpfm-wire.js';

/** A validated PrintJob call. */
export interface PrintCall {
  release: PrintRelease;
  progress: boolean;
}

/** Validates PrintJob's parameters; throws TpfmFailure with the spec's code. */
export function preparePrint(s: TpfmServices, call: TpfmCall): PrintCall {
  const held = heldJob(s, call);
  const printer = namedPrinter(s, call) ?? call.device!.printer;
  if (!printer) throw new TpfmFailure(4, 'no Printer given and the device’s printer is not registered yet');
  if (s.queue.ensureQueue(printer.organizationId).printerId === printer.id) {
    throw new TpfmFailure(4, 'Printer must be a physical printer, not the pull-printing queue');
  }
  if (!printerSupports(printer, held.file.extension)) {
    throw new TpfmFailure(4, `Printer "${printer.name}" does not support the job's format`);
  }
  const copies = intParam(call.query['Copies'], 'Copies', { min: 1, max: 999, code: 6 });
  const deleteOnSuccess = flagParam(call.query['Delete'], 'Delete', 7, true);
  const progress = flagParam(call.query['Progress'], 'Progress', 8, true);
  return { release: { held, user: call.user!, printer, copies, deleteOnSuccess }, progress };
}

const TRAILER_NAMES = [
  TPFM_HEADERS.return,
  TPFM_HEADERS.errText,
  TPFM_HEADERS.osError,
  TPFM_HEADERS.osErrText,
];

/** Starts the release and streams it; resolves when the response ended or the client left. */
export function streamPrint(
  reply: FastifyReply,
  s: TpfmServices,
  call: TpfmCall,
  print: PrintCall,
): Promise<void> {
  const proc = s.prints.start(print.release);
  reply.hijack();
  const res = reply.raw;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader(TPFM_HEADERS.procId, String(proc.procId));
  if (print.progress) res.setHeader(TPFM_HEADERS.progressType, 'Pages');
  res.setHeader('Trailer', TRAILER_NAMES.join(', '));
  res.flushHeaders();
  return new Promise((resolve) => {
    const stop = proc.subscribe((update) => {
      if (res.writableEnded || res.destroyed) return;
      if (update.kind === 'pages') {
        if (print.progress) res.write(formatProgressChunk(update));
        return;
      }
      stop();
      finish(res, update, call.langId);
      resolve();
    });
    res.on('close', () => {
      stop();
      resolve();
    });
  });
}

function finish(
  res: FastifyReply['raw'],
  done: Extract<PrintUpdate, { kind: 'done' }>,
  langId: string,
): void {
  res.write(formatResultLine(done.code));
  const trailers =
    done.code === 0
      ? { [TPFM_HEADERS.return]: '0' }
      : failureHeaders(new TpfmFailure(done.code, undefined, done.osError, done.osErrText), langId);
  res.addTrailers(trailers);
  res.end();
}
