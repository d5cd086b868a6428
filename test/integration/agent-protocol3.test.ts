/**
 * Connector protocol 3 end to end: the real agent, the real emulator (in this process, its
 * request log counted) and the shared ippeveprinter. With both sides at 3 a small job costs no
 * HTTP request on the job path (the document inline, the claim and the events on the channel);
 * a document above the inline limit is downloaded while its events stay on the channel; an agent
 * of protocol 3 with an emulator of protocol 2, and an agent of protocol 2 with an emulator of
 * protocol 3, print over REST as before. Every job prints exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { agentFor, emulatorCounting, printOnce } from '../support/channel-protocol-rig.js';
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

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'agent-p3-'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('both at 3: a small job costs no HTTP request; a large one only its download', async () => {
      const emulator = await emulatorCounting(dir, { maxProtocol: 3, inlineDocumentBytes: INLINE_LIMIT });
      const agent = agentFor(emulator.rig, dir, printerName, 3);
      try {
        await agent.start();
        const small = await printOnce(emulator, dir, agent, printerName, 'small, inline with its offer\n');
        expect(small.spent).toEqual({});
        const large = `${'a large document, downloaded over REST\n'.repeat(80)}`;
        expect(Buffer.byteLength(large)).toBeGreaterThan(INLINE_LIMIT);
        expect((await printOnce(emulator, dir, agent, printerName, large)).spent).toEqual({ download: 1 });
      } finally {
        await agent.stop();
        await emulator.rig.close();
      }
    });

    it('an agent of 3 with an emulator of 2 downloads and posts its events over REST', async () => {
      const emulator = await emulatorCounting(dir, { maxProtocol: 2 });
      const agent = agentFor(emulator.rig, dir, printerName, 3);
      try {
        await agent.start();
        const { spent } = await printOnce(emulator, dir, agent, printerName, 'agent 3, emulator 2\n');
        expect(spent.download).toBe(1);
        expect(spent['event batch']).toBeGreaterThanOrEqual(1);
      } finally {
        await agent.stop();
        await emulator.rig.close();
      }
    });

    it('an agent of 2 with an emulator of 3 downloads and posts its events over REST', async () => {
      const emulator = await emulatorCounting(dir, { maxProtocol: 3 });
      const agent = agentFor(emulator.rig, dir, printerName, 2);
      try {
        await agent.start();
        const { spent } = await printOnce(emulator, dir, agent, printerName, 'agent 2, emulator 3\n');
        expect(spent.download).toBe(1);
        expect(spent['event batch']).toBeGreaterThanOrEqual(1);
      } finally {
        await agent.stop();
        await emulator.rig.close();
      }
    });
  },
);
