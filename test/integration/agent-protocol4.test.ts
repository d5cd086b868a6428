/**
 * Connector protocol 4 end to end: the real agent, the real emulator (in this process, its HTTP
 * requests counted and its channel requests read from its log) and the shared ippeveprinter.
 * With both sides at 4 a small job's claim carries its first events (`received`, `downloading`)
 * and the job costs no HTTP request; with one side at 3 the channel speaks 3 and the claim
 * carries none; with one side at 2 the job goes over REST. Every job prints exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import {
  agentFor,
  type CountingEmulator,
  emulatorCounting,
  printOnce,
} from '../support/channel-protocol-rig.js';
import { peersAvailable } from '../support/peers.js';

const enabled = peersAvailable('ippeveprinter', 'ipptool') && inject('ippeveprinterUri') !== '';

// A long linger for events that are not final: the first events are still in the outbox when the
// claim goes (as they are within milliseconds on a quiet machine), so the test does not depend on
// the machine's speed. The final event ends any linger.
const LONG_LINGER = { event_linger_ms: 5000 };

describe.skipIf(!enabled)(
  'connector protocol 4 with the agent, the emulator and ippeveprinter',
  { timeout: 120_000 },
  () => {
    let dir: string;
    const printerName = 'Protocol 4 Printer';

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'agent-p4-'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    /** Starts both sides, prints one small job, stops both; returns what the job cost. */
    async function printWith(emulatorProtocol: number, agentProtocol: number) {
      const emulator = await emulatorCounting(dir, { maxProtocol: emulatorProtocol });
      const agent = agentFor(emulator.rig, dir, printerName, agentProtocol, LONG_LINGER);
      try {
        await agent.start();
        const text = `agent ${agentProtocol}, emulator ${emulatorProtocol}\n`;
        const { jobId, spent } = await printOnce(emulator, dir, agent, printerName, text);
        return { emulator, jobId, spent, claims: claimsOf(emulator, jobId) };
      } finally {
        await stop(agent, emulator);
      }
    }

    async function stop(agent: Agent, emulator: CountingEmulator) {
      await agent.stop();
      await emulator.rig.close();
    }

    const claimsOf = (emulator: CountingEmulator, jobId: string) =>
      emulator.channelRequests.filter((r) => r.type === 'claim' && r.job === jobId);

    it('both at 4: the claim carries the first events and the job costs no HTTP request', async () => {
      const { emulator, spent, claims } = await printWith(4, 4);
      expect(emulator.channelsOpened).toEqual([4]);
      expect(spent).toEqual({});
      expect(claims).toEqual([{ type: 'claim', job: claims[0]?.job, status: 200, events: 2 }]);
    });

    it.each([
      [4, 3],
      [3, 4],
    ])('emulator %i, agent %i: the channel speaks 3, the claim carries no events', async (e, a) => {
      const { emulator, spent, claims } = await printWith(e, a);
      expect(emulator.channelsOpened).toEqual([3]);
      expect(spent).toEqual({});
      expect(claims).toEqual([{ type: 'claim', job: claims[0]?.job, status: 200, events: 0 }]);
      // The first events went in a batch of their own on the channel.
      expect(emulator.channelRequests.filter((r) => r.type === 'events').length).toBeGreaterThanOrEqual(1);
    });

    it.each([
      [4, 2],
      [2, 4],
    ])('emulator %i, agent %i: the job is downloaded and its events posted over REST', async (e, a) => {
      const { emulator, spent, claims } = await printWith(e, a);
      expect(emulator.channelsOpened).toEqual([2]);
      expect(claims).toEqual([]);
      expect(spent.download).toBe(1);
      expect(spent['event batch']).toBeGreaterThanOrEqual(1);
    });
  },
);
