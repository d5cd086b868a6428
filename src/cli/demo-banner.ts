/**
 * The text `printrelay demo` prints once everything is up: where things are, the demo
 * credentials, and a copy-paste curl sequence that prints a file the way an app would
 * (token, PrepareUpload, upload, Print, Status). Pure.
 */
import { DEMO } from '../config/demo-seed.js';

/** What the banner shows. */
export interface DemoInfo {
  /** Base URL of the emulator, without a trailing slash. */
  url: string;
  printerUri: string;
  printerId: string;
  printedDir: string;
  dataDir: string;
  /** The demo's release station, when it has one. */
  release?: DemoReleaseInfo;
  /** The certificate of an HTTPS demo (--tls): clients trust `certFile`. */
  tls?: DemoTlsInfo;
  /** The agent's control API. */
  control?: DemoControlInfo;
}

/** The demo agent's control API: where it listens, or why it does not. */
export interface DemoControlInfo {
  url?: string;
  problem?: string;
  /** The agent.yaml that `printrelay status --config` reads. */
  configFile: string;
}

/** The certificate an HTTPS demo serves. */
export interface DemoTlsInfo {
  certFile: string;
  /** SHA-256 fingerprint, colon-separated hex. */
  fingerprint: string;
  /** Whether this start created it (else it was reused from the data directory). */
  created: boolean;
}

/** The demo's release station as the banner shows it. */
export interface DemoReleaseInfo {
  /** Reader URI (no secrets). */
  reader: string;
  /** Printer the station releases to. */
  printer: string;
  /** Name of the queue printer that holds jobs. */
  queue: string;
  running: boolean;
  /** Why it is not running. */
  problem?: string;
}

/** The sample document the banner's and README's print commands use (relative to the checkout). */
export const SAMPLE_DOCUMENT = 'docs/sample.pdf';

/** The line that tells scripts and tests the demo accepts jobs. */
export const READY_LINE = 'ready: the demo accepts print jobs (Ctrl+C stops it)';

function controlLines(control: DemoControlInfo): string[] {
  if (!control.url)
    return [`  Agent status       NOT available: ${control.problem ?? 'the control API is not listening'}`];
  return [
    `  Agent status       ${control.url}   (node bin/printrelay.js status --config ${control.configFile})`,
  ];
}

/** The whole banner, ending with READY_LINE. */
export function demoBanner(info: DemoInfo): string {
  return [
    '',
    'PrintRelay demo: emulator, virtual printer and agent in one process.',
    '',
    `  Cloud emulator     ${info.url}`,
    `  Virtual printer    ${info.printerUri}  ("${DEMO.printer.name}", cloud id ${info.printerId})`,
    `  Printed documents  ${info.printedDir}`,
    `  Data directory     ${info.dataDir}`,
    ...(info.control ? controlLines(info.control) : []),
    ...(info.tls ? tlsLines(info.tls) : []),
    '',
    'Demo credentials',
    `  OAuth client       ${DEMO.client.id} / ${DEMO.client.secret}`,
    `  Admin              ${DEMO.admin.email} / ${DEMO.admin.password}   (organization "${DEMO.organization}")`,
    `  User               ${DEMO.user.email} / ${DEMO.user.password}   (card ${DEMO.user.card})`,
    `  Pull printing      printer "${DEMO.printer.name}", device password ${DEMO.printer.pullPrintingPassword}`,
    `  Other organization ${DEMO.otherAdmin.email} / ${DEMO.otherAdmin.password}   ("${DEMO.otherOrganization}")`,
    `  Partner            ${DEMO.partner.admin.email} / ${DEMO.partner.admin.password}   (client ${DEMO.partner.client.id} / ${DEMO.partner.client.secret}; manages "${DEMO.organization}" and "${DEMO.otherOrganization}")`,
    `  Mail outbox        ${info.url}/_emulator/mail   (invitation e-mails; nothing is sent)`,
    '',
    'Print a file from another terminal:',
    `  node bin/printrelay.js print ${SAMPLE_DOCUMENT} --printer "${DEMO.printer.name}" --url ${info.url}${caFlag(info, '--ca')}`,
    '',
    'Or as an app would, with curl (copy and paste into bash):',
    ...curlSequence(info).map((line) => `  ${line}`),
    '',
    ...(info.release ? pullPrintingLines(info.url, info.release, info.dataDir, info.tls) : []),
    READY_LINE,
    '',
  ].join('\n');
}

/** The curl commands of the banner, one shell line each (continuations end with a backslash). */
export function curlSequence(info: Pick<DemoInfo, 'url' | 'printerId' | 'tls'>): string[] {
  const auth = '-H "Authorization: Bearer $TOKEN"';
  const curl = `curl -s${caFlag(info, '--cacert')}`;
  const field = (name: string) => `sed -E 's/.*"${name}":"([^"]*)".*/\\1/'`;
  const body = `{\\"fileid\\":\\"$FILEID\\",\\"type\\":\\"txt\\",\\"printerid\\":\\"${info.printerId}\\",\\"alias\\":\\"hello.txt\\"}`;
  return [
    `BASE=${info.url}`,
    `TOKEN=$(${curl} -u ${DEMO.client.id}:${DEMO.client.secret} -d grant_type=password -d scope=printing \\`,
    `  -d username=${DEMO.user.email} -d password=${DEMO.user.password} "$BASE/oauth/access_token/" | ${field('access_token')})`,
    `UPLOAD=$(${curl} ${auth} "$BASE/sfapi/PrepareUpload/")`,
    `FILEID=$(echo "$UPLOAD" | ${field('fileid')}); SASURI=$(echo "$UPLOAD" | ${field('sasUri')})`,
    `printf 'Hello from PrintRelay\\n' > hello.txt`,
    `${curl} -X PUT -H 'x-ms-blob-type: BlockBlob' -F file=@hello.txt "$SASURI"`,
    `JOBID=$(${curl} ${auth} -H 'Content-Type: application/json' \\`,
    `  -d "${body}" "$BASE/sfapi/Print/" | ${field('jobid')})`,
    `sleep 2; ${curl} ${auth} "$BASE/sfapi/Status/?id=$JOBID"; echo`,
  ];
}

/** How to try pull printing: hold a job in the queue, then swipe alice's card at the station. */
export function pullPrintingLines(
  url: string,
  release: DemoReleaseInfo,
  dataDir: string,
  tls?: DemoTlsInfo,
): string[] {
  const state = release.running ? 'running' : `NOT running: ${release.problem ?? 'unknown problem'}`;
  let swipe: string;
  if (release.reader.startsWith('socket:'))
    swipe = `node bin/printrelay.js swipe ${DEMO.user.card} --data-dir ${shellWord(dataDir)}`;
  else swipe = `# swipe card ${DEMO.user.card} on the reader ${release.reader}`;
  return [
    'Pull printing: hold a job in the queue, then release it with a card swipe:',
    `  Release station    "${release.printer}", reader ${release.reader} (${state})`,
    `  node bin/printrelay.js print ${SAMPLE_DOCUMENT} --printer "${release.queue}" --url ${url}${caFlag({ tls }, '--ca')} --timeout 3`,
    '  # the job waits in the queue (print stops waiting after 3 s) until the card is swiped:',
    `  ${swipe}`,
    '',
  ];
}

/** The certificate lines of an HTTPS demo. */
function tlsLines(tls: DemoTlsInfo): string[] {
  const how = tls.created ? 'created now' : 'reused';
  return [
    `  TLS certificate    ${tls.certFile}   (self-signed, ${how}; clients trust this file)`,
    `  SHA-256            ${tls.fingerprint}`,
  ];
}

/** ` FLAG FILE` naming the certificate to trust for an HTTPS demo; '' for plain HTTP. */
function caFlag(info: { tls?: DemoTlsInfo | undefined }, flag: string): string {
  return info.tls ? ` ${flag} ${shellWord(info.tls.certFile)}` : '';
}

/** A path as one shell word: quoted when it holds anything but safe characters. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
