import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialLimits } from '../../src/emulator/store/credential-guard.js';
import {
  call,
  DEMO,
  demoBasic,
  type Harness,
  passwordToken,
  startHarness,
  tokenRequest,
} from './emulator-harness.js';
import {
  DEVICE_PASSWORD,
  FUTURE,
  startTpfmHarness,
  type TpfmHarness,
  tpfm,
} from './emulator-tpfm-harness.js';

const minutes = (n: number) => n * 60_000;
const limits = (perSubject: number, perSource: number): CredentialLimits => ({
  perSubject: { maxFailures: perSubject, windowMs: minutes(5), lockMs: minutes(5), maxKeys: 1000 },
  perSource: { maxFailures: perSource, windowMs: minutes(5), lockMs: minutes(5), maxKeys: 1000 },
  failureDelayMs: 0,
});
const passwordForm = {
  grant_type: 'password',
  username: DEMO.user.email,
  password: DEMO.user.password,
  scope: 'printing',
};

describe('secret checks: throttled per client, per user and per source', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('locks a client after 3 wrong secrets with 429 and Retry-After, even for the right one, until the lock ends', async () => {
    h = await startHarness({ credentialLimits: limits(3, 100) });
    for (let i = 0; i < 3; i++) {
      const wrong = await tokenRequest(h.baseUrl, passwordForm, demoBasic(DEMO.client.id, `wrong-${i}`));
      expect(wrong.status).toBe(401);
      expect(wrong.body['error']).toBe('invalid_client');
    }
    const locked = await tokenRequest(h.baseUrl, passwordForm, demoBasic());
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('300');
    const description = 'too many failed sign-in attempts for this account; try again in 300 s';
    expect(locked.body).toEqual({
      error: 'too_many_requests',
      error_description: description,
      message: description,
    });
    h.clock.advance(minutes(5));
    expect((await tokenRequest(h.baseUrl, passwordForm, demoBasic())).status).toBe(200);
  });

  it('locks a user name after wrong passwords; other users of the same client are not affected', async () => {
    h = await startHarness({ credentialLimits: limits(2, 100) });
    const wrong = { ...passwordForm, password: 'not-it' };
    expect((await tokenRequest(h.baseUrl, wrong, demoBasic())).status).toBe(400);
    expect((await tokenRequest(h.baseUrl, wrong, demoBasic())).status).toBe(400);
    expect((await tokenRequest(h.baseUrl, passwordForm, demoBasic())).status).toBe(429);
    expect(await passwordToken(h.baseUrl, 'printing', DEMO.admin)).toMatch(/^ey/);
  });

  it('locks a source address that sprays wrong secrets over many client ids', async () => {
    h = await startHarness({ credentialLimits: limits(100, 4) });
    for (let i = 0; i < 4; i++) {
      expect(
        (await tokenRequest(h.baseUrl, passwordForm, demoBasic(`no-such-client-${i}`, 'x'))).status,
      ).toBe(401);
    }
    const locked = await tokenRequest(h.baseUrl, passwordForm, demoBasic());
    expect(locked.status).toBe(429);
    const description = 'too many failed sign-in attempts from this address; try again in 300 s';
    expect(locked.body).toEqual({
      error: 'too_many_requests',
      error_description: description,
      message: description,
    });
  });

  it('keeps the event loop free: a Status sent after wrong-secret requests is answered before them', async () => {
    h = await startHarness();
    const token = await passwordToken(h.baseUrl, 'printing');
    const order: string[] = [];
    const wrong = Array.from({ length: 4 }, (_, i) =>
      tokenRequest(h.baseUrl, passwordForm, demoBasic(DEMO.client.id, `wrong-${i}`)).then((r) => {
        order.push(`token ${r.status}`);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    const status = call(h.baseUrl, 'GET', '/sfapi/Status/?id=none', token).then((r) => {
      order.push(`status ${r.status}`);
    });
    await Promise.all([...wrong, status]);
    expect(order[0]).toBe('status 200');
    expect(order.slice(1)).toEqual(['token 401', 'token 401', 'token 401', 'token 401']);
  });
});

describe('/TPFM/ device passwords', () => {
  let t: TpfmHarness;
  beforeEach(async () => {
    t = await startTpfmHarness({ credentialLimits: limits(3, 100) });
  });
  afterEach(async () => t.close());
  const runs = () => t.emulator.app.emulator.credentials.hasher.stats().scryptRuns;

  it('checks only the printer the Printer parameter names: one scrypt for a wrong password', async () => {
    const before = runs();
    const wrong = await tpfm(
      t,
      'GetJobList',
      { Printer: DEMO.printer.name },
      { user: DEMO.user.card, password: 'wrong-device' },
    );
    expect(wrong.status).toBe(401);
    expect(runs() - before).toBe(1);
  });

  it('without Printer, a password that matched before is tried first: no scrypt the second time', async () => {
    const first = await tpfm(t, 'GetJobList', {}, { user: DEMO.user.card, password: FUTURE.password });
    expect(first.code).toBe(0);
    const before = runs();
    const again = await tpfm(t, 'GetJobList', {}, { user: DEMO.user.card, password: FUTURE.password });
    expect(again.code).toBe(0);
    expect(runs() - before).toBe(0);
  });

  it('locks a printer after 3 wrong device passwords: 429 with Retry-After, not an X-FMP code', async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await tpfm(
        t,
        'GetJobList',
        { Printer: DEMO.printer.name },
        { user: DEMO.user.card, password: `bad-${i}` },
      );
      expect(wrong.status).toBe(401);
    }
    const locked = await tpfm(
      t,
      'GetJobList',
      { Printer: DEMO.printer.name },
      { user: DEMO.user.card, password: DEVICE_PASSWORD },
    );
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('300');
    expect(locked.headers['x-fmp-return']).toBeUndefined();
  });
});

describe('/TPFM/ card numbers presented with the right device password', () => {
  let t: TpfmHarness;
  beforeEach(async () => {
    t = await startTpfmHarness({
      credentialLimits: {
        ...limits(100, 100),
        unknownNamesPerDevice: { maxFailures: 3, windowMs: minutes(5), lockMs: minutes(5), maxKeys: 1000 },
      },
    });
  });
  afterEach(async () => t.close());
  const list = (user: string, password: string = DEVICE_PASSWORD) =>
    tpfm(t, 'GetJobList', { Printer: DEMO.printer.name }, { user, password });

  it('answers unknown cards, a card in another case and a wrong device password alike', async () => {
    const answers = [
      await list('DEADBEEF00'),
      await list(DEMO.user.card.toLowerCase()),
      await list(DEMO.user.card, 'not-the-device-password'),
    ];
    const seen = answers.map((a) => [a.status, a.headers['www-authenticate'], a.code, a.body]);
    expect(seen).toEqual(answers.map(() => seen[0]));
    expect(seen[0]?.[0]).toBe(401);
  });

  it('locks the card look-ups of a device after 3 unknown cards: 429 with Retry-After for every card', async () => {
    await expect(list('GUESS-1')).resolves.toMatchObject({ status: 401 });
    await expect(list('GUESS-2')).resolves.toMatchObject({ status: 401 });
    // A card the guesser owns does not reset the count.
    await expect(list(DEMO.user.card)).resolves.toMatchObject({ status: 200, code: 0 });
    await expect(list('GUESS-3')).resolves.toMatchObject({ status: 401 });
    for (const card of ['GUESS-4', DEMO.user.card]) {
      const locked = await list(card);
      expect([locked.status, locked.headers['retry-after'], locked.headers['x-fmp-return']]).toEqual([
        429,
        '300',
        undefined,
      ]);
    }
    // Another device of the organization is not locked.
    const other = await tpfm(t, 'GetJobList', {}, { user: DEMO.user.card, password: FUTURE.password });
    expect([other.status, other.code]).toEqual([200, 0]);
    t.clock.advance(minutes(5));
    await expect(list(DEMO.user.card)).resolves.toMatchObject({ status: 200, code: 0 });
  });
});
