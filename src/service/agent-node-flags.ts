/**
 * The node flags and environment the agent's services run with (the systemd unit in
 * packaging/systemd and the WinSW definition of `printrelay service install`); the benchmarks start
 * their agents with the same ones. They trade a little CPU, or none, for a smaller resident set,
 * measured in docs/performance.md (*Node flags*, *Round 7: the peak on Node 24*):
 *
 * - `--max-semi-space-size=1`: the young generation's semi-spaces stay at 1 MiB instead of
 *   growing to 16 MiB under load. The agent's objects are short-lived and small (a job's records,
 *   one HTTP exchange), so scavenges stay cheap; what the larger spaces held was mostly garbage.
 * - `--liftoff-only`: WebAssembly runs on V8's baseline compiler only. The one WebAssembly module
 *   of the agent is undici's HTTP parser (llhttp); tiering it up with the optimizing compiler
 *   took about 35 MB of transient native memory, of which about 11 MB stayed resident, to speed
 *   up parsing a few hundred bytes of headers per request.
 *
 * Both flags exist on Node 20, 22 and 24 (an unknown V8 flag makes node refuse to start; the unit
 * test runs node with them on each line CI runs).
 */
export const AGENT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--liftoff-only'];

/**
 * Environment variables of the agent's Linux service (`Environment=` lines of the systemd unit):
 *
 * - `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates (V8's worker threads, libuv's
 *   pool) a malloc arena of its own, up to eight per core, and each keeps what it once held; two
 *   arenas are shared by all of them. On Node 24 the agent's peak fell by 1.1-1.5 MB after 100
 *   jobs and 2.0-4.2 MB after 500 with the same CPU per job (one arena, measured in Round 4, made
 *   the threads wait for each other's lock).
 *
 * The Windows service does not set it: it is a setting of glibc, which Windows' C runtime does
 * not read.
 */
export const AGENT_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
