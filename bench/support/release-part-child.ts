/**
 * One part of bench:release-split in a node process of its own, so that `node --cpu-prof` profiles
 * it alone (and marks its idle time): the emulator, or the agent with its release station.
 *
 *   release-part-child.ts emulator <work dir>
 *     The emulator as bench:release builds it (demo seed, in-memory database, no PrepareUpload
 *     rate limit); prints `listening <url>`.
 *   release-part-child.ts agent <work dir> <emulator url> <printer uri> <reader uri> [parallel]
 *     The agent with the printer as "Demo Printer" and a release station on the socket:// reader;
 *     prints `ready` once started and `session-end <printed>` when a station session ends.
 *
 * Both run until SIGTERM, then stop their part and exit (which writes the profile).
 */
import { join } from 'node:path';
import { Agent } from '../../src/agent/agent.js';
import { defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator } from '../../src/emulator/app.js';
import { silentLogger } from '../../src/log/logger.js';
import { releaseBenchAgentConfig } from './release-bench-config.js';

async function emulatorPart(work: string): Promise<() => Promise<void>> {
  const emulator = await createEmulator({
    db: ':memory:',
    dataDir: join(work, 'emulator'),
    seed: defaultEmulatorSeed(),
    logger: silentLogger(),
    uploadLimits: { prepareRate: { max: 1_000_000, windowMs: 60_000 } },
  });
  const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
  console.log(`listening ${url}`);
  return () => emulator.close();
}

async function agentPart(args: string[]): Promise<() => Promise<void>> {
  const [work, url, printerUri, reader, parallel] = args as [string, string, string, string, string?];
  const config = releaseBenchAgentConfig(url, printerUri, reader, parallel ? Number(parallel) : undefined);
  const agent = new Agent({
    config,
    dataDir: join(work, 'agent'),
    logger: silentLogger(),
    release: { onSessionEnd: (_name, summary) => console.log(`session-end ${summary.printed.length}`) },
  });
  await agent.start();
  console.log('ready');
  return () => agent.stop();
}

const [kind, ...rest] = process.argv.slice(2);
const stop = kind === 'emulator' ? await emulatorPart(rest[0] as string) : await agentPart(rest);
process.once('SIGTERM', () => {
  void stop().finally(() => process.exit(0));
});
