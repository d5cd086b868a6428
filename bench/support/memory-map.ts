/**
 * A process's resident memory by cause, from /proc/<pid>/smaps and its threads' stack pointers
 * (bench:idle-breakdown): the node binary's code, read-only data and data; native addons;
 * shared libraries; the main malloc heap; the malloc arenas of other threads; thread stacks (the
 * mapping holding each thread's stack pointer); the rest of the anonymous memory (the V8 heap,
 * V8's code space and whatever large allocations malloc mapped on their own). Linux only.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync, realpathSync } from 'node:fs';

/** Resident pages of one cause, bytes. */
export interface MemoryShare {
  rss: number;
  private: number;
  pss: number;
  /** How many mappings made it up. */
  mappings: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  /** Offset in the mapped file. */
  offset: bigint;
  perms: string;
  path: string;
  rss: number;
  private: number;
  pss: number;
}

/** glibc maps each non-main arena as a HEAP_MAX_SIZE (64 MiB) region aligned to its size. */
const ARENA_SIZE = 64n * 1024n * 1024n;

function parseSmaps(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = {
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        offset: BigInt(`0x${head[4]}`),
        perms: head[3] ?? '',
        path: head[5] ?? '',
        rss: 0,
        private: 0,
        pss: 0,
      };
      mappings.push(current);
      continue;
    }
    const field = /^(\w+):\s+(\d+) kB/.exec(line);
    if (!field || !current) continue;
    const bytes = Number(field[2]) * 1024;
    if (field[1] === 'Rss') current.rss = bytes;
    else if (field[1] === 'Pss') current.pss = bytes;
    else if (field[1] === 'Private_Clean' || field[1] === 'Private_Dirty') current.private += bytes;
  }
  return mappings;
}

/** Each thread's name by its stack pointer (from /proc/<pid>/task/<tid>/syscall; root or the owner). */
function threadStackPointers(pid: number): { name: string; sp: bigint }[] {
  const threads: { name: string; sp: bigint }[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const dir = `/proc/${pid}/task/${tid}`;
    const fields = readFileSync(`${dir}/syscall`, 'utf8').trim().split(' ');
    const sp = fields.length >= 3 ? fields[fields.length - 2] : undefined;
    if (!sp?.startsWith('0x')) continue; // running: no stack pointer to read
    threads.push({ name: readFileSync(`${dir}/comm`, 'utf8').trim(), sp: BigInt(sp) });
  }
  return threads;
}

/**
 * Where the node binary keeps ICU's data (the `icudt*_dat` symbol), as a file offset range, from
 * `nm` and `readelf` (binutils); undefined without them or without the symbol.
 */
function icuDataRange(binary: string): { from: bigint; to: bigint } | undefined {
  try {
    const symbol = /^([0-9a-f]+) ([0-9a-f]+) \S icudt\d+_dat$/m.exec(
      execFileSync('nm', ['-S', binary], { encoding: 'utf8', maxBuffer: 1 << 28 }),
    );
    const section = /\.rodata\s+PROGBITS\s+([0-9a-f]+) ([0-9a-f]+)/.exec(
      execFileSync('readelf', ['-S', '-W', binary], { encoding: 'utf8' }),
    );
    if (!symbol || !section) return undefined;
    const from = BigInt(`0x${symbol[1]}`) - BigInt(`0x${section[1]}`) + BigInt(`0x${section[2]}`);
    return { from, to: from + BigInt(`0x${symbol[2]}`) };
  } catch {
    return undefined;
  }
}

/** Bytes of `[start, end)` of `pid`'s address space present in its page table (/proc/<pid>/pagemap, root). */
function presentBytes(pid: number, start: bigint, end: bigint): number {
  const page = 4096n;
  const first = start / page;
  const pages = Number((end + page - 1n) / page - first);
  if (pages <= 0) return 0;
  const entries = Buffer.alloc(pages * 8);
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    readSync(fd, entries, 0, entries.length, Number(first * 8n));
  } finally {
    closeSync(fd);
  }
  let present = 0;
  for (let i = 0; i < pages; i++) if (entries.readBigUInt64LE(i * 8) >> 63n === 1n) present += 4096;
  return present;
}

function isArena(mappings: Mapping[], index: number): boolean {
  const mapping = mappings[index];
  if (mapping === undefined) return false;
  if (mapping.path !== '' || mapping.perms !== 'rw-p' || mapping.start % ARENA_SIZE !== 0n) return false;
  const next = mappings[index + 1];
  // the arena's unused remainder follows it, reserved without access, up to the next boundary
  return (
    mapping.end - mapping.start === ARENA_SIZE ||
    (next !== undefined &&
      next.start === mapping.end &&
      next.perms === '---p' &&
      next.end - mapping.start === ARENA_SIZE)
  );
}

/**
 * The resident memory of `pid` by cause. Keys: `node binary: code`, `node binary: read-only data`,
 * `node binary: ICU data` (the pages of ICU's data present in the process's page table),
 * `node binary: data`, `native addon <file>`, `shared libraries`, `malloc: main heap`,
 * `malloc: thread arenas`, `stacks of the <n> other threads` (those whose
 * stack pointer could be read), `main thread stack`, `anonymous: V8 heap,
 * code space, large allocations`, `other`.
 */
export function memoryByCause(pid: number): Map<string, MemoryShare> {
  const binary = realpathSync(`/proc/${pid}/exe`);
  const mappings = parseSmaps(pid);
  const stacks = threadStackPointers(pid);
  const icu = icuDataRange(binary);
  const icuPresent = (mapping: Mapping, range: { from: bigint; to: bigint }) => {
    const from = range.from > mapping.offset ? range.from : mapping.offset;
    const mappedTo = mapping.offset + (mapping.end - mapping.start);
    const to = range.to < mappedTo ? range.to : mappedTo;
    if (to <= from) return 0;
    const base = mapping.start - mapping.offset;
    return presentBytes(pid, base + from, base + to);
  };
  const shares = new Map<string, MemoryShare>();
  const add = (cause: string, mapping: Mapping) => {
    const share = shares.get(cause) ?? { rss: 0, private: 0, pss: 0, mappings: 0 };
    share.rss += mapping.rss;
    share.private += mapping.private;
    share.pss += mapping.pss;
    share.mappings += 1;
    shares.set(cause, share);
  };
  mappings.forEach((mapping, index) => {
    if (mapping.rss === 0) return;
    const { path, perms } = mapping;
    if (path === binary) {
      const part = perms.includes('x') ? 'code' : perms.startsWith('rw') ? 'data' : 'read-only data';
      const icuRss = part === 'read-only data' && icu ? icuPresent(mapping, icu) : 0;
      if (icuRss > 0) {
        // ICU's pages apart, each counted at the mapping's average share (they are file pages)
        const share = icuRss / mapping.rss;
        const part = (m: Mapping, f: number) => ({
          ...m,
          rss: m.rss * f,
          private: m.private * f,
          pss: m.pss * f,
        });
        add('node binary: ICU data', part(mapping, share));
        add('node binary: read-only data', part(mapping, 1 - share));
      } else add(`node binary: ${part}`, mapping);
    } else if (path.endsWith('.node')) add(`native addon ${path.split('/').pop()}`, mapping);
    else if (/\.so(\.|$)/.test(path)) add('shared libraries', mapping);
    else if (path === '[heap]') add('malloc: main heap', mapping);
    else if (path === '[stack]') add('main thread stack', mapping);
    else if (path === '') {
      const owners = stacks.filter((t) => t.sp >= mapping.start && t.sp < mapping.end).map((t) => t.name);
      if (owners.length > 0) add(`stacks of the ${stacks.length - 1} other threads`, mapping);
      else if (isArena(mappings, index)) add('malloc: thread arenas', mapping);
      else add('anonymous: V8 heap, code space, large allocations', mapping);
    } else add('other', mapping);
  });
  return shares;
}
