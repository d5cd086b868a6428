/**
 * Registration-code sheets for an unknown card: one sheet per card per interval (10 minutes by
 * default, by the emulator's clock), also when the requests come in parallel; after the
 * interval the same open code is printed again. Other cards are not held back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REGISTRATION_JOB_USER,
  REGISTRATION_SHEET_INTERVAL_MS,
} from '../../src/emulator/pull/cards/registration-codes.js';
import { DEMO, startTpfmHarness, type TpfmHarness, tpfm } from './emulator-tpfm-harness.js';

describe('registration sheets per card', () => {
  let h: TpfmHarness;
  beforeAll(async () => {
    h = await startTpfmHarness();
  });
  afterAll(async () => h?.close());

  const db = () => h.emulator.app.emulator.store.db;
  const sheets = () =>
    (
      db().prepare('SELECT COUNT(*) AS n FROM jobs WHERE user_id = ?').get(REGISTRATION_JOB_USER) as {
        n: number;
      }
    ).n;
  const codesOf = (card: string) =>
    (
      db().prepare('SELECT code FROM registration_codes WHERE card_number = ?').all(card) as {
        code: string;
      }[]
    ).map((r) => r.code);
  const ask = (card: string) => tpfm(h, 'GetCapabilities', { Printer: DEMO.printer.name }, { user: card });

  it('prints one sheet for ten requests of one card, and the next after the interval', async () => {
    const card = 'F00DCAFE10';
    const before = sheets();
    for (let i = 0; i < 10; i++) expect((await ask(card)).code).toBe(0);
    expect(sheets()).toBe(before + 1);
    h.clock.advance(REGISTRATION_SHEET_INTERVAL_MS - 1);
    await ask(card);
    expect(sheets()).toBe(before + 1);
    h.clock.advance(1);
    await ask(card);
    expect(sheets()).toBe(before + 2);
    expect(codesOf(card)).toHaveLength(1);
  });

  it('prints one sheet for parallel requests of one card; another card gets its own', async () => {
    const before = sheets();
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask('BEEFF00D20')));
    expect(answers.map((a) => a.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(sheets()).toBe(before + 1);
    await ask('BEEFF00D21');
    expect(sheets()).toBe(before + 2);
  });
});
