/**
 * Connector protocol 3 end to end: the real agent, the real emulator (in this process, its
 * request log counted) and the shared ippeveprinter. With both sides at 3 a small job costs no
 * HTTP request on the job path (the document inline, the claim and the events on the channel);
 * a document above the inline limit is downloaded while its events stay on the channel; an agent
 * of protocol 3 with an emulator of protocol 2, and an agent of protocol 2 with an emulator of
 * protocol 3, print over REST as before. Every job prints exactly once.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestKind } from '../../bench/support/request-counts.js';
import { Agent } from '../../src/agent/agent.js';
import type { ChannelSettings } from '../../src/emulator/connectors/connector-hub.js';
import { DEMO, parseAgentConfig } from '../../src/config/load-config.js';
import { sleep } from '../../src/lib/abort.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { type EmulatorWithApp, startEmulatorWithApp } from '../support/agent-rig.js';
import { peersAvailable } from '../support/peers.js';

const enabled = peersAvailable('ippeveprinter', 'ipptool') && inject('ippeveprinterUri') !== '';

/** The emulator's inline limit here: the small document fits, the large one does not. */
const INLINE_LIMIT = 2048;

// Each test starts an emulator and an agent and prints through ippeveprinter: generous limits
// for a loaded machine (no timing is asserted).
describe.skipIf(!enabled)(
  'connector protocol 3 with the agent, the emulator and ippeveprinter',
  { timeout: 120_000 },
  () => {
    let dir: string;
    const printerName = 'Protocol 3 Printer';

    /** The emulator with its connector-path HTTP requests counted by kind (claim, download, event batch, ...). */
    async function emulatorCounting(connectorChannel: ChannelSettings) {
      const counts = new Map<string, number>();
      const logger = createLogger({
        level: 'info',
        destination: {
          write: (line: string) => {
            if (!line.includes('"request completed"')) return;
            const { method, path } = JSON.parse(line) as { method: string; path: string };
            const kind = requestKind(method, path);
            if (kind) counts.set(kind, (counts.get(kind) ?? 0) + 1);
          },
        },
      });
      const rig = await startEmulatorWithApp(mkdtempSync(join(dir, 'emu-')), { logger, connectorChannel });
      return { rig, counts };
    }

    function agentFor(rig: EmulatorWithApp, channelProtocol?: number): Agent {
      const yaml = `
version: 1
cloud:
  url: ${rig.base}
  client_id: ${DEMO.client.id}
  client_secret: ${DEMO.client.secret}
  username: ${DEMO.admin.email}
  password: ${DEMO.admin.password}
  channel: websocket
  poll_interval_s: 1
connector:
  name: protocol-3-test
jobs:
  retry_initial_ms: 50
  retry_max_ms: 500
  status_poll_ms: 100
printers:
  - name: ${printerName}
    uri: ${inject('ippeveprinterUri')}
`;
      return new Agent({
        config: parseAgentConfig(yaml, 'agent.yaml', { env: {} }),
        dataDir: mkdtempSync(join(dir, 'agent-')),
        logger: silentLogger(),
        ...(channelProtocol === undefined ? {} : { channelProtocol }),
      });
    }

    async function submit(rig: EmulatorWithApp, printerId: string, text: string): Promise<string> {
      const file = join(dir, `doc-${Date.now()}-${Math.random()}.txt`);
      writeFileSync(file, text);
      const upload = await rig.sfapi.prepareUpload();
      await rig.sfapi.upload(upload.sasUri, file, () => {});
      const { jobid } = await rig.sfapi.print({
        fileid: upload.fileid,
        type: 'txt',
        printerid: printerId,
        alias: 'a.txt',
      });
      return jobid;
    }

    async function completed(rig: EmulatorWithApp, jobId: string): Promise<number> {
      for (let i = 0; i < 600; i++) {
        const status = await rig.sfapi.status(jobId);
        if (![129, 1246].includes(status.jobstatus)) return status.jobstatus;
        await sleep(50);
      }
      throw new Error(`job ${jobId} did not end`);
    }

    const printsOf = (jobId: string) => {
      const files = readdirSync(inject('ippeveprinterSpool')).filter((f) =>
        f.includes(`printrelay-${jobId}.`),
      );
      return new Set(files.map((f) => f.split('-')[0])).size;
    };

    /** Prints `text` with a started agent; returns the job path's HTTP requests the job cost, by kind. */
    async function printOnce(rig: EmulatorWithApp, counts: Map<string, number>, agent: Agent, text: string) {
      while (!agent.channelConnected) await sleep(20);
      const printerId = agent.printers().find((p) => p.config.name === printerName)?.cloudId as string;
      const before = new Map(counts);
      const jobId = await submit(rig, printerId, text);
      expect(await completed(rig, jobId)).toBe(0);
      // The completed event is what the status showed: nothing of this job is left to send.
      while ((agent.outboxStats()?.depth ?? 0) > 0) await sleep(20);
      expect(printsOf(jobId)).toBe(1);
      // The job's own requests; a long poll begun before the channel came up may still end meanwhile.
      const spent: Record<string, number> = {};
      for (const [kind, n] of counts)
        if (kind !== 'poll' && n !== (before.get(kind) ?? 0)) spent[kind] = n - (before.get(kind) ?? 0);
      return spent;
    }

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'agent-p3-'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('both at 3: a small job costs no HTTP request; a large one only its download', async () => {
      const { rig, counts } = await emulatorCounting({ inlineDocumentBytes: INLINE_LIMIT });
      const agent = agentFor(rig);
      try {
        await agent.start();
        expect(await printOnce(rig, counts, agent, 'small, inline with its offer\n')).toEqual({});
        const large = `${'a large document, downloaded over REST\n'.repeat(80)}`;
        expect(Buffer.byteLength(large)).toBeGreaterThan(INLINE_LIMIT);
        expect(await printOnce(rig, counts, agent, large)).toEqual({ download: 1 });
      } finally {
        await agent.stop();
        await rig.close();
      }
    });

    it('an agent of 3 with an emulator of 2 downloads and posts its events over REST', async () => {
      const { rig, counts } = await emulatorCounting({ maxProtocol: 2 });
      const agent = agentFor(rig);
      try {
        await agent.start();
        const spent = await printOnce(rig, counts, agent, 'agent 3, emulator 2\n');
        expect(spent.download).toBe(1);
        expect(spent['event batch']).toBeGreaterThanOrEqual(1);
      } finally {
        await agent.stop();
        await rig.close();
      }
    });

    it('an agent of 2 with an emulator of 3 downloads and posts its events over REST', async () => {
      const { rig, counts } = await emulatorCounting({});
      const agent = agentFor(rig, 2);
      try {
        await agent.start();
        const spent = await printOnce(rig, counts, agent, 'agent 2, emulator 3\n');
        expect(spent.download).toBe(1);
        expect(spent['event batch']).toBeGreaterThanOrEqual(1);
      } finally {
        await agent.stop();
        await rig.close();
      }
    });
  },
);
