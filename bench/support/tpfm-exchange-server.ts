/**
 * The server side of bench:tpfm-exchange in a process of its own: the bare PrintJob server of
 * bare-print-job.ts. Prints `listening <port>`; runs until SIGTERM.
 */
import { startBarePrintJobServer } from './bare-print-job.js';

const server = await startBarePrintJobServer();
console.log(`listening ${server.port}`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
