/**
 * Where a process's CPU time went, from a V8 CPU profile (`node --cpu-prof`, or the files
 * BENCH_PROFILE_DIR makes bench:e2e and bench:agent-cost write): every sample is charged to the
 * deepest function of this project's own code on its stack, so each line is what one of our
 * functions cost with everything it called in libraries, node and native code (SQLite, sockets),
 * but without our functions below it. Samples with none of our code on the stack are charged to
 * the deepest library or node module instead, and V8's own entries (garbage collector, idle,
 * program) are shown as they are.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [per=<count>]
 * `per` divides every figure by a count (jobs, events) to print microseconds per item.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Microseconds of the monotonic clock at the start (the first sample is this plus its delta). */
  startTime?: number;
}

/** The label a frame is charged under, or undefined when it is not ours. */
function ownLabel(node: ProfileNode): string | undefined {
  // Our code is under src/ (tsx) or dist/ (BENCH_ENTRY=dist). By name and file: under tsx the
  // line numbers are those of the transpiled code.
  const { url, functionName } = node.callFrame;
  const at = Math.max(url.indexOf('/src/'), url.indexOf('/dist/'));
  if (at < 0 || url.includes('/node_modules/')) return undefined;
  return `${functionName || '(anonymous)'} ${url.slice(at + 1)}`;
}

/** A library's or node module's name for a frame, or undefined. */
function moduleLabel(node: ProfileNode): string | undefined {
  const { url } = node.callFrame;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `[${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}]`;
  }
  if (url.startsWith('node:')) return `[${url}]`;
  return undefined;
}

/**
 * Microseconds charged to each label (see the header), V8's own entries included; with `keep`,
 * only the samples whose time (µs of the monotonic clock, as `process.hrtime` reads it) it keeps.
 */
export function chargeSamples(profile: CpuProfile, keep?: (atUs: number) => boolean): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const labels = new Map<number, string>();
  const labelOf = (id: number): string => {
    const cached = labels.get(id);
    if (cached) return cached;
    const special = (byId.get(id) as ProfileNode).callFrame.functionName;
    let label: string | undefined = V8_ENTRIES.has(special) ? special : undefined;
    let fallback: string | undefined;
    for (let at: number | undefined = id; !label && at !== undefined; at = parent.get(at)) {
      const node = byId.get(at) as ProfileNode;
      label = ownLabel(node);
      fallback ??= moduleLabel(node);
    }
    label ??= fallback ?? `(native) ${special}`;
    labels.set(id, label);
    return label;
  };
  const charged = new Map<string, number>();
  let at = profile.startTime ?? 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (keep && !keep(at)) return;
    const label = labelOf(id);
    charged.set(label, (charged.get(label) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return charged;
}

const V8_ENTRIES = new Set(['(garbage collector)', '(idle)', '(program)']);

function main(args: string[]): void {
  const [file, topArg, perArg] = args;
  if (!file) {
    console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [per=<count>]');
    process.exit(2);
  }
  const top = Number(topArg?.replace(/^top=/, '') ?? 25);
  const per = perArg ? Number(perArg.replace(/^per=/, '')) : undefined;
  const charged = chargeSamples(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const total = [...charged.values()].reduce((a, b) => a + b, 0);
  const busy = total - (charged.get('(idle)') ?? 0);
  const show = (us: number) => (per ? (us / per).toFixed(1) : (us / 1000).toFixed(1));
  const unit = per ? `us per item (${per} items)` : 'ms';
  console.log(
    `profile ${file}: ${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy; figures in ${unit}`,
  );
  console.log(`busy ${show(busy)}`);
  const rows = [...charged.entries()].filter(([label]) => label !== '(idle)').sort((a, b) => b[1] - a[1]);
  for (const [label, us] of rows.slice(0, top)) {
    console.log(`${show(us).padStart(9)}  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${label}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
