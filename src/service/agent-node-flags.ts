/**
 * The node flags the agent's services run with (the systemd unit in packaging/systemd and the
 * WinSW definition of `printrelay service install`); the benchmarks start their agents with the
 * same ones. Both trade a little CPU for a smaller resident set, measured in docs/performance.md:
 *
 * - `--max-semi-space-size=1`: the young generation's semi-spaces stay at 1 MiB instead of
 *   growing to 16 MiB under load. The agent's objects are short-lived and small (a job's records,
 *   one HTTP exchange), so scavenges stay cheap; what the larger spaces held was mostly garbage.
 * - `--liftoff-only`: WebAssembly runs on V8's baseline compiler only. The one WebAssembly module
 *   of the agent is undici's HTTP parser (llhttp); tiering it up with the optimizing compiler
 *   took about 35 MB of transient native memory, of which about 11 MB stayed resident, to speed
 *   up parsing a few hundred bytes of headers per request.
 */
export const AGENT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--liftoff-only'];
