/**
 * `printrelay print FILE --printer NAME [options]`: prints a file the way an app does
 * (PrepareUpload, upload, Print, Status polled) with a progress bar on a terminal and plain
 * lines otherwise. Service and credentials default to the demo's; --ca trusts a private CA.
 * Prints `printed: job ID, N page(s)` and below it each option the job's Status says was not
 * applied. Exits non-zero with a clear message when the job fails.
 */
import { type Command, Option } from 'commander';
import { DEMO } from '../../config/demo-seed.js';
import { readCaFile } from '../../client/cloud-trust.js';
import { CliError, parseIntegerOption } from '../cli-runtime.js';
import { printFile } from '../print-flow.js';
import { type PrintFlags, printFlagNotes, printOptionFields } from '../print-options.js';
import { createPrintReporter } from '../print-progress.js';

interface PrintCommandFlags extends PrintFlags {
  printer: string;
  url: string;
  clientId: string;
  clientSecret: string;
  user: string;
  password: string;
  pollMs: string;
  timeout: string;
  ca?: string;
}

/** Registers `print`. */
export function registerPrintCommand(program: Command): void {
  program
    .command('print')
    .description('print a file through the cloud print service, as an app would')
    .argument('<file>', 'the document')
    .requiredOption('--printer <name>', 'printer name as the service lists it')
    .option('--copies <n>', 'number of copies (1-999)')
    .option('--duplex <mode>', 'none, long-edge or short-edge')
    .option('--color', 'print in colour')
    .option('--mono', 'print in black and white (monochrome)')
    .addOption(new Option('--no-color', 'deprecated spelling of --mono').hideHelp())
    .option('--paper <paper>', 'paper name (A4, Letter, ...), PWG keyword or desktop paper id')
    .option('--orientation <o>', 'portrait or landscape')
    .option('--pages <ranges>', 'pages to print, such as 1-3,5')
    .option('--tray <tray>', 'tray name, or tray index')
    .option('--type <ext>', 'file type when the name has no usable extension')
    .option('--delete', 'delete the file at the service after printing')
    .option('--url <url>', 'base URL of the service', 'http://127.0.0.1:8080')
    .option(
      '--ca <file>',
      'PEM certificate of a CA to trust for an https --url (printrelay demo --tls: <data-dir>/tls/cert.pem)',
    )
    .option('--client-id <id>', 'OAuth client id', DEMO.client.id)
    .option('--client-secret <secret>', 'OAuth client secret', DEMO.client.secret)
    .option('--user <email>', 'account to print as', DEMO.user.email)
    .option('--password <password>', 'password of that account', DEMO.user.password)
    .option('--poll-ms <ms>', 'Status poll interval', '1000')
    .option('--timeout <s>', 'give up waiting for the job after this many seconds', '300')
    .action(async (file: string, flags: PrintCommandFlags) => runPrint(file, flags));
}

function readCa(file: string): string {
  try {
    return readCaFile(file, '--ca');
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

async function runPrint(file: string, flags: PrintCommandFlags): Promise<void> {
  const fields = printOptionFields(file, flags);
  for (const note of printFlagNotes(flags)) process.stderr.write(`note: ${note}\n`);
  const poll = {
    intervalMs: parseIntegerOption('--poll-ms', flags.pollMs, 10, 60_000),
    timeoutMs: parseIntegerOption('--timeout', flags.timeout, 1, 86_400) * 1000,
  };
  const reporter = createPrintReporter();
  const target = {
    url: flags.url,
    clientId: flags.clientId,
    clientSecret: flags.clientSecret,
    user: flags.user,
    password: flags.password,
    printer: flags.printer,
    ...(flags.ca ? { ca: readCa(flags.ca) } : {}),
  };
  let result: Awaited<ReturnType<typeof printFile>>;
  try {
    result = await printFile(file, fields, target, reporter, poll);
  } finally {
    reporter.finish();
  }
  process.stdout.write(`printed: job ${result.jobId}, ${result.status.jobpagesprinted} page(s)\n`);
  for (const note of result.notes) process.stdout.write(`${note}\n`);
}
