/**
 * The rig of the connector protocol tests with the real agent, the real emulator (in this
 * process, its connector-path HTTP requests counted by kind and its channel requests listed from
 * its log) and the shared ippeveprinter: an emulator of a chosen protocol, an agent asking for a
 * chosen one, a job submitted through the print API and waited for, and what it cost.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { requestKind } from '../../bench/support/request-counts.js';
import type { Agent } from '../../src/agent/agent.js';
import type { ChannelSettings } from '../../src/emulator/connectors/connector-hub.js';
import { sleep } from '../../src/lib/abort.js';
import { createLogger } from '../../src/log/logger.js';
import { type EmulatorWithApp, startEmulatorWithApp } from './agent-rig.js';
import { emulatorAgent } from './emulator-agent-config.js';
import { submitText } from './emulator-print.js';

/** A channel request the emulator answered (its `channel request answered` log line). */
export interface ChannelRequestLine {
  type: 'claim' | 'events';
  job?: string;
  status?: number;
  /** Events carried: a batch's, or a claim's (protocol 4). */
  events: number;
}

/** An emulator whose connector-path requests are counted (`counts`) and channel requests listed. */
export interface CountingEmulator {
  rig: EmulatorWithApp;
  counts: Map<string, number>;
  channelRequests: ChannelRequestLine[];
  /** The protocol of every channel the emulator opened, in order. */
  channelsOpened: number[];
}

/** Starts an emulator under `dir` with `connectorChannel`; the caller closes `rig`. */
export async function emulatorCounting(
  dir: string,
  connectorChannel: ChannelSettings,
): Promise<CountingEmulator> {
  const counts = new Map<string, number>();
  const channelRequests: ChannelRequestLine[] = [];
  const channelsOpened: number[] = [];
  const logger = createLogger({
    level: 'info',
    destination: {
      write: (line: string) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry['msg'] === 'request completed') {
          const kind = requestKind(entry['method'] as string, entry['path'] as string);
          if (kind) counts.set(kind, (counts.get(kind) ?? 0) + 1);
        } else if (entry['msg'] === 'channel request answered') {
          channelRequests.push({
            type: entry['type'] as 'claim' | 'events',
            ...(typeof entry['job'] === 'string' ? { job: entry['job'] } : {}),
            ...(typeof entry['status'] === 'number' ? { status: entry['status'] } : {}),
            events: Number(entry['events'] ?? 0),
          });
        } else if (entry['msg'] === 'channel open') channelsOpened.push(Number(entry['protocol']));
      },
    },
  });
  const rig = await startEmulatorWithApp(mkdtempSync(join(dir, 'emu-')), { logger, connectorChannel });
  return { rig, counts, channelRequests, channelsOpened };
}

/**
 * An agent (not started) of the emulator, with one printer, the shared ippeveprinter; `jobs` adds
 * keys to (or overrides) its `jobs:` section.
 */
export function agentFor(
  rig: EmulatorWithApp,
  dir: string,
  printerName: string,
  channelProtocol?: number,
  jobs: Record<string, number> = {},
): Agent {
  return emulatorAgent({
    cloudUrl: rig.base,
    channel: 'websocket',
    connectorName: 'protocol-test',
    jobs: { retry_max_ms: 500, ...jobs },
    printers: [{ name: printerName, uri: inject('ippeveprinterUri') }],
    dataDir: mkdtempSync(join(dir, 'agent-')),
    ...(channelProtocol === undefined ? {} : { channelProtocol }),
  });
}

async function completed(rig: EmulatorWithApp, jobId: string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const status = await rig.sfapi.status(jobId);
    if (![129, 1246].includes(status.jobstatus)) return status.jobstatus;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not end`);
}

/** How many printer jobs at ippeveprinter hold the job's document. */
export function printsOf(jobId: string): number {
  const files = readdirSync(inject('ippeveprinterSpool')).filter((f) => f.includes(`printrelay-${jobId}.`));
  return new Set(files.map((f) => f.split('-')[0])).size;
}

/**
 * Prints `text` with a started agent, checks it completed and printed once, and returns the job's
 * id and the HTTP requests of the job path it cost, by kind.
 */
export async function printOnce(
  emulator: CountingEmulator,
  dir: string,
  agent: Agent,
  printerName: string,
  text: string,
): Promise<{ jobId: string; spent: Record<string, number> }> {
  const { rig, counts } = emulator;
  while (!agent.channelConnected) await sleep(20);
  const printerId = agent.printers().find((p) => p.config.name === printerName)?.cloudId as string;
  const before = new Map(counts);
  const jobId = await submitText(rig.sfapi, dir, printerId, text);
  expect(await completed(rig, jobId)).toBe(0);
  // The completed event is what the status showed: nothing of this job is left to send.
  while ((agent.outboxStats()?.depth ?? 0) > 0) await sleep(20);
  expect(printsOf(jobId)).toBe(1);
  // The job's own requests; a long poll begun before the channel came up may still end meanwhile.
  const spent: Record<string, number> = {};
  for (const [kind, n] of counts)
    if (kind !== 'poll' && n !== (before.get(kind) ?? 0)) spent[kind] = n - (before.get(kind) ?? 0);
  return { jobId, spent };
}
