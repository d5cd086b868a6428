/**
 * Copy accounting against a real SNMP agent: Debian's snmpd serving Printer-MIB counters
 * (pass_persist) that the test advances, read with net-snmp over UDP as v2c and as v3 authPriv;
 * a copy session counted from those counters (released pages subtracted) reaches the emulator
 * as a local job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyTracker } from '../../src/agent/copyjobs/copy-tracker.js';
import { LocalJobSender } from '../../src/agent/copyjobs/local-job-sender.js';
import { tpfmLocalJobTransport } from '../../src/agent/copyjobs/local-job-transport.js';
import { SnmpCounterSource, SnmpReadError } from '../../src/agent/copyjobs/snmp-counters.js';
import { TpfmClient } from '../../src/client/tpfm-client.js';
import { SnmpSourceSchema, type SnmpSourceConfig } from '../../src/config/copy-jobs-schema.js';
import { LocalJobService } from '../../src/emulator/pull/local-jobs/local-job-service.js';
import { silentLogger } from '../../src/log/logger.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { LocalJobStore } from '../../src/store/local-job-store.js';
import { Outbox } from '../../src/store/outbox.js';
import { peersAvailable } from '../support/peers.js';
import {
  PRT_MARKER_LIFE_COUNT,
  type RunningSnmpd,
  SNMP_V3_USER,
  startSnmpd,
  TEST_COLOR_OID,
  TEST_DUPLEX_OID,
} from '../support/snmpd.js';
import { DEMO, startTpfmHarness, type TpfmHarness } from './emulator-tpfm-harness.js';
import { Value } from '@sinclair/typebox/value';

const haveSnmpd = peersAvailable('snmpd');
const counters = { total: 1000, color: 300, duplex: 50 };

function served(): Record<string, number> {
  return {
    [PRT_MARKER_LIFE_COUNT]: counters.total,
    [TEST_COLOR_OID]: counters.color,
    [TEST_DUPLEX_OID]: counters.duplex,
  };
}

describe.runIf(haveSnmpd)('copy counts from snmpd (Printer-MIB over UDP)', () => {
  let snmpd: RunningSnmpd;
  const sources: SnmpCounterSource[] = [];
  const source = (settings: Partial<SnmpSourceConfig>) => {
    const config = Value.Default(SnmpSourceSchema, {
      host: '127.0.0.1',
      port: snmpd.port,
      color_oid: TEST_COLOR_OID,
      duplex_oid: TEST_DUPLEX_OID,
      timeout_ms: 500,
      ...settings,
    }) as SnmpSourceConfig;
    const made = new SnmpCounterSource(config);
    sources.push(made);
    return made;
  };

  beforeAll(async () => {
    snmpd = await startSnmpd(served());
    const probe = source({});
    for (let i = 0; i < 40; i++) {
      if (
        await probe.read().then(
          () => true,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('snmpd did not answer');
  });
  afterAll(async () => {
    for (const s of sources) await s.close();
    await snmpd?.stop();
  });

  it('reads prtMarkerLifeCount and the colour and duplex counters as they advance (v2c and v1)', async () => {
    const v2c = source({ version: '2c' });
    expect(await v2c.read()).toEqual({ impressions: 1000, color: 300, duplexSheets: 50 });
    counters.total += 7;
    counters.color += 2;
    snmpd.setCounters(served());
    expect(await v2c.read()).toEqual({ impressions: 1007, color: 302, duplexSheets: 50 });
    expect(await source({ version: '1' }).read()).toEqual({
      impressions: 1007,
      color: 302,
      duplexSheets: 50,
    });
  });

  it('reads over SNMPv3 authPriv (SHA/AES) and refuses a wrong privacy key without showing it', async () => {
    const v3 = source({
      version: '3',
      user: SNMP_V3_USER.user,
      auth_key: SNMP_V3_USER.authKey,
      priv_key: SNMP_V3_USER.privKey,
    });
    expect((await v3.read()).impressions).toBe(counters.total);
    const wrong = source({
      version: '3',
      user: SNMP_V3_USER.user,
      auth_key: 'wrong-auth-key',
      priv_key: 'wrong-priv',
    });
    const error = await wrong.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnmpReadError);
    expect(String((error as Error).message)).toMatch(/^SNMP 127\.0\.0\.1:\d+ \(v3\): /);
    expect(String((error as Error).message)).not.toContain('wrong-');
    const noMib = source({ total_oid: '1.3.6.1.2.1.43.99.1' });
    await expect(noMib.read()).rejects.toThrow(`no counter at 1.3.6.1.2.1.43.99.1`);
  });

  describe('a copy session counted by SNMP', () => {
    let h: TpfmHarness;
    beforeAll(async () => {
      h = await startTpfmHarness();
    });
    afterAll(async () => h?.close());

    it('records the copies, not the released job, and delivers them to the emulator', async () => {
      const logger = silentLogger();
      const db = openAgentDatabase(':memory:');
      const outbox = new Outbox(db, h.clock, { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 });
      const store = new LocalJobStore(db, outbox, h.clock);
      const client = new TpfmClient({
        baseUrl: h.baseUrl,
        password: DEMO.printer.pullPrintingPassword,
        userAgent: 'copyjobs snmp test',
        logger,
      });
      const sender = new LocalJobSender({
        db,
        outbox,
        store,
        transport: tpfmLocalJobTransport(() => client),
        clock: h.clock,
        logger,
      });
      const shown: string[] = [];
      const tracker = new CopyTracker({
        station: 'front',
        printer: DEMO.printer.name,
        sources: [source({ version: '2c' })],
        store,
        clock: h.clock,
        logger,
        ui: { message: (_k, text) => shown.push(text) },
        paperId: 9,
        pollIntervalMs: 3_600_000,
        sessionTimeoutMs: 180_000,
        onQueued: () => {},
      });
      await tracker.cardPresent(DEMO.user.card);
      counters.total += 4; // four copied pages
      snmpd.setCounters(served());
      await tracker.poll();
      expect(await sender.flush()).toBe(1);
      tracker.releaseStarted(); // a released 2-page print job
      counters.total += 2;
      snmpd.setCounters(served());
      tracker.releaseEnded(2);
      counters.total += 3; // three more copied pages
      snmpd.setCounters(served());
      await tracker.cardRemoved();
      expect(await sender.flush()).toBe(1);
      const [record] = store.recent();
      expect(record).toMatchObject({
        source: 'snmp',
        status: 'Succeeded',
        tracking: 'pending',
        deliveredStatus: 'Succeeded',
        fields: { Copies: 1, PaperId: 9, TotalPrintedPages: 7, TotalPrintedColorPages: 0, Color: 0 },
      });
      const cloud = new LocalJobService(h.emulator.app.emulator.store, h.clock, logger).find(
        record!.cloudJobId!,
      );
      expect(cloud).toMatchObject({
        type: 'Copy',
        state: 'Succeeded',
        fields: { Copies: 1, PaperId: 9, TotalPrintedPages: 7, TotalPrintedColorPages: 0, Color: 0 },
      });
      expect(shown).toEqual(['Copies recorded: 7 pages']);
      await tracker.stop();
      await client.close();
      db.close();
    });
  });
});
