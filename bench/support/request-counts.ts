/**
 * Request counts of the benchmarks: the connector-channel requests the emulator logged (its JSON
 * log at info level, one `request completed` line per request) by kind, and the IPP requests and
 * new connections at ippeveprinter (its `-v` log) by operation.
 */
/** The kind of a connector-channel request line of the emulator's log, or undefined for others. */
export function requestKind(method: string, path: string): string | undefined {
  if (/^\/connector\/v1\/jobs\/[^/]+\/claim$/i.test(path)) return 'claim';
  if (/^\/connector\/v1\/jobs\/[^/]+\/document$/i.test(path)) return 'download';
  if (/^\/connector\/v1\/jobs\/[^/]+\/events$/i.test(path)) return 'event (single)';
  if (/^\/connector\/v1\/events$/i.test(path)) return 'event batch';
  if (/^\/connector\/v1\/jobs$/i.test(path)) return 'poll';
  if (
    path.toLowerCase().startsWith('/connector/') ||
    (method !== 'GET' && path.startsWith('/printing/v1/printers'))
  )
    return 'other connector';
  return undefined;
}

/**
 * Counts ippeveprinter's verbose log: one `<client> <Operation> <status>` line per IPP request,
 * one `Accepted connection` line per new connection.
 */
export function ippCounter() {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const onLogLine = (line: string) => {
    if (line.startsWith('Accepted connection')) add('connection');
    const operation =
      /^\S+ ([A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)+) (?:successful|client-error|server-error)/.exec(line)?.[1];
    if (operation) add(operation);
  };
  return { onLogLine, snapshot: () => new Map(counts) };
}

/**
 * Counts the emulator's `request completed` lines by kind, from its JSON log on stdout, and its
 * `channel request answered` lines (protocol 3's claims and event batches on the WebSocket) as
 * `channel claim` and `channel events`, and protocol 4's claims that carried events also as
 * `channel claim with events`.
 */
export function countRequests(stdout: NodeJS.ReadableStream) {
  const counts = new Map<string, number>();
  const add = (kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes('"channel request answered"')) {
        const answered = JSON.parse(line) as { type: string; events?: number };
        add(`channel ${answered.type}`);
        // Protocol 4: a claim that carried the job's first events.
        if (answered.type === 'claim' && (answered.events ?? 0) > 0) add('channel claim with events');
        continue;
      }
      if (!line.includes('"request completed"')) continue;
      const { method, path } = JSON.parse(line) as { method: string; path: string };
      const kind = requestKind(method, path);
      if (kind) add(kind);
    }
  });
  return { snapshot: () => new Map(counts) };
}

/**
 * `<total>: <kind> <per job>, ...` between two snapshots, over `jobs` jobs (`skip`: keys left out).
 * A kind that is a part of another (`channel claim with events`) is shown, not added to the total.
 */
export function perJobPhrase(
  before: Map<string, number>,
  after: Map<string, number>,
  jobs: number,
  skip: string[] = [],
): string {
  const perJob = (key: string) => ((after.get(key) ?? 0) - (before.get(key) ?? 0)) / jobs;
  const keys = [...after.keys()].filter((k) => !skip.includes(k) && perJob(k) > 0).sort();
  const total = keys
    .filter((key) => !key.endsWith(' with events'))
    .reduce((sum, key) => sum + perJob(key), 0);
  return `${total.toFixed(2)} (${keys.map((k) => `${k} ${perJob(k).toFixed(2)}`).join(', ')})`;
}
