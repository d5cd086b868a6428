/**
 * The /TPFM/ authenticator (tpfm-auth.ts) over records held in memory: a real SecretHasher and
 * CredentialGuard on a manual clock, the password hashes made with a cheap scrypt cost so each
 * check takes microseconds, and the guard's failure delay recorded instead of waited. Pinned: the
 * answers (none, refused with its reason, the device and the user), which printers' passwords a
 * request checks and in which order (the Printer parameter, the printer a password matched
 * before), what counts against which throttle, and the proofs of a connection: used while the
 * printer's hash, the printer the parameter names and the hasher's memory all still hold.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CardHolderRecords, User } from '../../../../../src/emulator/accounts/accounts-face.js';
import type { PrinterRecord, PullPasswordRow } from '../../../../../src/emulator/printers/printers-face.js';
import type { PullPrinterRecords } from '../../../../../src/emulator/pull/pull-records.js';
import { TpfmAuthenticator, type TpfmAuthResult } from '../../../../../src/emulator/pull/tpfm/tpfm-auth.js';
import { CredentialGuard } from '../../../../../src/emulator/store/credential-guard.js';
import { SecretHasher } from '../../../../../src/emulator/store/secret-hash.js';
import { ManualClock } from '../../../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../../../src/lib/errors.js';

const SOURCE = '192.0.2.7';
const FAILURE_DELAY_MS = 7;
const REFUSED = { kind: 'refused', reason: 'the password is no pull printer’s password' };

/** A stored scrypt hash of the hasher's format with the cheapest cost it accepts. */
function cheapHash(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 16, r: 1, p: 1 });
  return ['scrypt', 16, 1, 1, salt.toString('base64'), key.toString('base64')].join('$');
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const user = (id: string, organizationId: string) => ({ id, organizationId }) as User;
const printer = (id: string, organizationId: string, name: string) =>
  ({ id, organizationId, name }) as PrinterRecord;

const ALICE = user('alice-id', 'org-1');
const BOB = user('bob-id', 'org-2');

let clock: ManualClock;
let hasher: SecretHasher;
let auth: TpfmAuthenticator;
let rows: PullPasswordRow[];
let printers: PrinterRecord[];
/** The printer (org/name) of every hash verify() was asked about, in order; `unknown` else. */
let tried: string[];
let waits: number[];
let hashOwners: Map<string, string>;

function setPassword(organizationId: string, printerName: string, password: string): string {
  const hash = cheapHash(password);
  hashOwners.set(hash, `${organizationId}/${printerName}`);
  rows = rows.filter((r) => r.organizationId !== organizationId || r.printerName !== printerName);
  rows.push({ organizationId, printerName, hash });
  rows.sort((a, b) =>
    `${a.organizationId}/${a.printerName}`.localeCompare(`${b.organizationId}/${b.printerName}`),
  );
  return hash;
}

function setHash(organizationId: string, printerName: string, hash: string): void {
  for (const r of rows)
    if (r.organizationId === organizationId && r.printerName === printerName) r.hash = hash;
}

function records(): PullPrinterRecords {
  const fold = (text: string) => text.toLowerCase();
  return {
    connectors: {} as PullPrinterRecords['connectors'],
    printers: {
      insert: () => {
        throw new Error('not used');
      },
      findById: (id: string) => printers.find((p) => p.id === id),
      findByName: (org: string, name: string) =>
        printers.find((p) => p.organizationId === org && p.name === name),
      findByNameIgnoringCase: (org: string, name: string) =>
        printers.find((p) => p.organizationId === org && fold(p.name) === fold(name)),
    } as unknown as PullPrinterRecords['printers'],
    pullPasswords: {
      setPullPrintingPasswordHash: () => {
        throw new Error('not used');
      },
      passwordRows: () => rows.map((r) => ({ ...r })),
      passwordHash: (org: string, name: string) =>
        rows.find((r) => r.organizationId === org && r.printerName === name)?.hash ?? null,
    } as unknown as PullPrinterRecords['pullPasswords'],
  };
}

function cardHolders(): CardHolderRecords {
  const cards = new Map([
    ['org-1/04A1', ALICE],
    ['org-2/04B2', BOB],
  ]);
  return {
    findByCard: (org: string, card: string) => cards.get(`${org}/${card}`),
    findById: (id: string) => [ALICE, BOB].find((u) => u.id === id),
    addCard: () => {
      throw new Error('not used');
    },
  } as unknown as CardHolderRecords;
}

beforeEach(() => {
  clock = new ManualClock(Date.UTC(2026, 2, 1, 10));
  hasher = new SecretHasher(clock);
  tried = [];
  waits = [];
  hashOwners = new Map();
  const verify = hasher.verify.bind(hasher);
  hasher.verify = (secret: string, stored: string) => {
    tried.push(hashOwners.get(stored) ?? 'unknown');
    return verify(secret, stored);
  };
  const guard = new CredentialGuard(
    hasher,
    clock,
    {
      perSubject: { maxFailures: 3, windowMs: 60_000, lockMs: 60_000, maxKeys: 100 },
      perSource: { maxFailures: 10_000, windowMs: 60_000, lockMs: 60_000, maxKeys: 100 },
      failureDelayMs: FAILURE_DELAY_MS,
      unknownNamesPerDevice: { maxFailures: 2, windowMs: 60_000, lockMs: 60_000, maxKeys: 100 },
    },
    async (ms) => {
      waits.push(ms);
    },
  );
  rows = [];
  printers = [
    printer('p-back', 'org-1', 'Back Office'),
    printer('p-demo', 'org-1', 'Demo'),
    printer('p-other', 'org-2', 'Demo'),
  ];
  setPassword('org-1', 'Back Office', 'back-pass');
  setPassword('org-1', 'Demo', 'demo-pass');
  setPassword('org-2', 'Demo', 'other-pass');
  auth = new TpfmAuthenticator(cardHolders(), records(), guard);
});

const run = (header: string | undefined, printerParam?: string, connection?: object) =>
  auth.authenticate(header, printerParam, SOURCE, connection);

const locked = (attempt: Promise<unknown>) => expect(attempt).rejects.toBeInstanceOf(TooManyRequestsError);

/** The printer (org/name) and user id of a device answer. */
function device(result: TpfmAuthResult) {
  if (result.kind !== 'device') return result;
  const { device: d } = result;
  return {
    at: `${d.organizationId}/${d.printerName}`,
    printer: d.printer?.id,
    user: result.userName,
    id: result.user?.id,
  };
}

describe('TpfmAuthenticator.authenticate: the answer', () => {
  it('answers none without a header or with a blank one', async () => {
    for (const header of [undefined, '', '   ']) expect(await run(header)).toEqual({ kind: 'none' });
    expect(tried).toEqual([]);
  });

  it('refuses a header that is not Basic user:password, naming the rule', async () => {
    for (const header of ['Bearer abc', 'Basic !!!', basic('', 'demo-pass')])
      expect(await run(header)).toEqual({
        kind: 'refused',
        reason: 'Authorization must be Basic user:password',
      });
    expect(tried).toEqual([]);
  });

  it('answers the device of the matching password, its printer record and the card holder', async () => {
    expect(device(await run(basic('04A1', 'demo-pass')))).toEqual({
      at: 'org-1/Demo',
      printer: 'p-demo',
      user: '04A1',
      id: 'alice-id',
    });
    expect(device(await run(basic('04B2', 'other-pass')))).toEqual({
      at: 'org-2/Demo',
      printer: 'p-other',
      user: '04B2',
      id: 'bob-id',
    });
  });

  it('answers no printer record for a pull printer no connector registered yet', async () => {
    setPassword('org-1', 'Future', 'future-pass');
    expect(device(await run(basic('04A1', 'future-pass')))).toEqual({
      at: 'org-1/Future',
      printer: undefined,
      user: '04A1',
      id: 'alice-id',
    });
  });

  it("finds the user by a user id in any case, of the device's organization only", async () => {
    expect(device(await run(basic('ALICE-ID', 'demo-pass')))).toMatchObject({
      user: 'ALICE-ID',
      id: 'alice-id',
    });
    expect(device(await run(basic('bob-id', 'demo-pass')))).toMatchObject({ user: 'bob-id', id: undefined });
    expect(device(await run(basic('04B2', 'demo-pass')))).toMatchObject({ user: '04B2', id: undefined });
  });

  it('refuses a wrong password after the failure delay', async () => {
    expect(await run(basic('04A1', 'wrong'))).toEqual(REFUSED);
    expect(waits).toEqual([FAILURE_DELAY_MS]);
  });

  it('spends a check on an unknown password even when no printer has one', async () => {
    rows = [];
    expect(await run(basic('04A1', 'demo-pass'))).toEqual(REFUSED);
    expect(tried).toEqual(['unknown']);
  });
});

describe('TpfmAuthenticator.authenticate: which passwords are checked', () => {
  it('tries the printer a password matched before first', async () => {
    await run(basic('04A1', 'demo-pass'));
    expect(tried).toEqual(['org-1/Back Office', 'org-1/Demo']);
    tried = [];
    await run(basic('04A1', 'demo-pass'));
    expect(tried).toEqual(['org-1/Demo']);
    tried = [];
    await run(basic('04A1', 'back-pass'));
    expect(tried).toEqual(['org-1/Back Office']);
  });

  it('tries the printer a password matched before once, first, when its password has changed since', async () => {
    await run(basic('04A1', 'demo-pass'));
    setPassword('org-1', 'Demo', 'new-pass');
    tried = [];
    expect(await run(basic('04A1', 'demo-pass'))).toEqual(REFUSED);
    expect(tried).toEqual(['org-1/Demo', 'org-1/Back Office', 'org-2/Demo']);
  });

  it('checks only the printer the Printer parameter names, by name (blanks and ASCII case aside) or id', async () => {
    for (const param of ['Demo', ' DEMO ', 'demo', 'p-demo', 'P-DEMO']) {
      tried = [];
      expect(device(await run(basic('04A1', 'demo-pass'), param))).toMatchObject({ at: 'org-1/Demo' });
      expect(tried).toEqual(['org-1/Demo']);
    }
    tried = [];
    // A name names the pull printers of that name in every organization: the password tells which.
    expect(await run(basic('04A1', 'back-pass'), 'Demo')).toEqual(REFUSED);
    expect(tried).toEqual(['org-1/Demo', 'org-2/Demo']);
  });

  it('folds ASCII letters only when matching a printer name', async () => {
    setPassword('org-1', 'Café', 'cafe-pass');
    tried = [];
    await run(basic('04A1', 'cafe-pass'), 'CAFÉ');
    expect(tried).toContain('org-1/Back Office');
    tried = [];
    await run(basic('04A1', 'cafe-pass'), 'CAFé');
    expect(tried).toEqual(['org-1/Café']);
  });

  it("names by id only that printer's own password, not another organization's printer of the same name", async () => {
    expect(await run(basic('04B2', 'other-pass'), 'p-demo')).toEqual(REFUSED);
    expect(tried).toEqual(['org-1/Demo']);
  });

  it('checks every password when the Printer parameter names no pull printer', async () => {
    for (const param of ['Nowhere', 'p-nowhere', ''])
      expect(device(await run(basic('04B2', 'other-pass'), param))).toMatchObject({ at: 'org-2/Demo' });
  });

  it('forgets the printer a password matched first after 1000 other passwords matched', async () => {
    const password = (i: number) => `pass-${i}`;
    const hashes: string[] = [];
    for (let i = 0; i < 1000; i++) {
      hashes.push(setPassword('org-2', 'Demo', password(i)));
      await run(basic('04B2', password(i)));
    }
    // The first one is still remembered (1000 kept), and matching it again makes it the newest.
    setHash('org-2', 'Demo', hashes[0]!);
    tried = [];
    await run(basic('04B2', password(0)));
    expect(tried).toEqual(['org-2/Demo']);
    setPassword('org-2', 'Demo', password(1000));
    await run(basic('04B2', password(1000)));
    // The oldest now is the second one: forgotten, every printer is tried in order again.
    setHash('org-2', 'Demo', hashes[0]!);
    tried = [];
    await run(basic('04B2', password(0)));
    expect(tried).toEqual(['org-2/Demo']);
    setHash('org-2', 'Demo', hashes[1]!);
    tried = [];
    await run(basic('04B2', password(1)));
    expect(tried).toEqual(['org-1/Back Office', 'org-1/Demo', 'org-2/Demo']);
  });
});

describe('TpfmAuthenticator.authenticate: throttles', () => {
  it('counts failures with a Printer parameter against that printer, in any spelling', async () => {
    for (const param of ['Demo', ' DEMO ', 'demo'])
      expect(await run(basic('04A1', 'wrong'), param)).toEqual(REFUSED);
    await locked(run(basic('04A1', 'demo-pass'), 'Demo'));
    expect(device(await run(basic('04A1', 'back-pass'), 'Back Office'))).toMatchObject({
      at: 'org-1/Back Office',
    });
    expect(device(await run(basic('04A1', 'demo-pass')))).toMatchObject({ at: 'org-1/Demo' });
  });

  it('counts failures without a Printer parameter against the user name', async () => {
    for (let i = 0; i < 3; i++) expect(await run(basic('04A1', 'wrong'))).toEqual(REFUSED);
    await locked(run(basic('04A1', 'demo-pass')));
    expect(device(await run(basic('04B2', 'other-pass')))).toMatchObject({ at: 'org-2/Demo' });
  });

  it('clears the count on a success', async () => {
    for (let i = 0; i < 2; i++) await run(basic('04A1', 'wrong'));
    await run(basic('04A1', 'demo-pass'));
    for (let i = 0; i < 2; i++) expect(await run(basic('04A1', 'wrong'))).toEqual(REFUSED);
    expect(device(await run(basic('04A1', 'demo-pass')))).toMatchObject({ id: 'alice-id' });
  });

  it("counts unknown card numbers against the device, after the failure delay, and locks that device's look-ups", async () => {
    waits = [];
    expect(device(await run(basic('04A1', 'demo-pass')))).toMatchObject({ id: 'alice-id' });
    expect(waits).toEqual([]);
    for (const card of ['0000', '0001']) {
      expect(device(await run(basic(card, 'demo-pass')))).toMatchObject({ id: undefined });
    }
    expect(waits).toEqual([FAILURE_DELAY_MS, FAILURE_DELAY_MS]);
    await locked(run(basic('04A1', 'demo-pass')));
    expect(device(await run(basic('04A1', 'back-pass')))).toMatchObject({
      at: 'org-1/Back Office',
      id: 'alice-id',
    });
    expect(device(await run(basic('04B2', 'other-pass')))).toMatchObject({ at: 'org-2/Demo', id: 'bob-id' });
  });

  it('lets known cards look up without counting', async () => {
    for (let i = 0; i < 5; i++)
      expect(device(await run(basic('04A1', 'demo-pass')))).toMatchObject({ id: 'alice-id' });
  });
});

describe('TpfmAuthenticator.authenticate: proofs of a connection', () => {
  it('checks a header once per connection and Printer parameter; a request without a connection always', async () => {
    const first = {};
    const header = basic('04A1', 'demo-pass');
    expect(device(await run(header, undefined, first))).toMatchObject({ at: 'org-1/Demo', id: 'alice-id' });
    tried = [];
    expect(device(await run(header, undefined, first))).toMatchObject({
      at: 'org-1/Demo',
      printer: 'p-demo',
    });
    expect(device(await run(header, ' DEMO ', first))).toMatchObject({ at: 'org-1/Demo' });
    expect(tried).toEqual(['org-1/Demo']);
    tried = [];
    expect(device(await run(header, ' DEMO ', first))).toMatchObject({ at: 'org-1/Demo' });
    expect(device(await run(basic('ALICE-ID', 'demo-pass'), undefined, {}))).toMatchObject({
      id: 'alice-id',
    });
    expect(tried).toEqual(['org-1/Demo']);
    tried = [];
    await run(header);
    await run(header);
    expect(tried).toEqual(['org-1/Demo', 'org-1/Demo']);
  });

  it('looks the card up on every request of a proved connection', async () => {
    const connection = {};
    await run(basic('0000', 'demo-pass'), undefined, connection);
    await run(basic('0000', 'demo-pass'), undefined, connection);
    await locked(run(basic('0000', 'demo-pass'), undefined, connection));
  });

  it('proves nothing with a wrong password', async () => {
    const connection = {};
    expect(await run(basic('04A1', 'wrong'), undefined, connection)).toEqual(REFUSED);
    tried = [];
    expect(await run(basic('04A1', 'wrong'), undefined, connection)).toEqual(REFUSED);
    expect(tried.length).toBeGreaterThan(0);
  });

  it("refuses the old password on the next request once the printer's hash changed, and forgets the proof", async () => {
    const connection = {};
    const header = basic('04A1', 'demo-pass');
    const old = rows.find((r) => r.printerName === 'Demo' && r.organizationId === 'org-1')!.hash;
    await run(header, undefined, connection);
    setPassword('org-1', 'Demo', 'new-pass');
    expect(await run(header, undefined, connection)).toEqual(REFUSED);
    // The same hash back again: the proof was forgotten, so the password is checked again.
    setHash('org-1', 'Demo', old);
    tried = [];
    expect(device(await run(header, undefined, connection))).toMatchObject({ at: 'org-1/Demo' });
    expect(tried.length).toBeGreaterThan(0);
  });

  it('checks again when the printer the parameter names by id is no longer that printer', async () => {
    const connection = {};
    const header = basic('04A1', 'demo-pass');
    await run(header, 'p-demo', connection);
    printers = printers.map((p) => (p.id === 'p-demo' ? { ...p, name: 'Renamed' } : p));
    tried = [];
    expect(device(await run(header, 'p-demo', connection))).toMatchObject({ at: 'org-1/Demo' });
    expect(tried).toContain('org-1/Demo');
  });

  it('checks again once the hasher no longer remembers the match', async () => {
    const connection = {};
    const header = basic('04A1', 'demo-pass');
    await run(header, undefined, connection);
    clock.advance(10 * 60_000);
    tried = [];
    expect(device(await run(header, undefined, connection))).toMatchObject({ at: 'org-1/Demo' });
    expect(tried).toEqual(['org-1/Demo']);
  });
});

describe('TpfmAuthenticator.printer', () => {
  it("finds a printer of the device's organization by id in any case, or by name ignoring case", async () => {
    const result = await run(basic('04A1', 'demo-pass'));
    if (result.kind !== 'device') throw new Error('expected a device');
    expect(auth.printer(result.device, 'P-BACK')?.id).toBe('p-back');
    expect(auth.printer(result.device, 'back office')?.id).toBe('p-back');
    expect(auth.printer(result.device, 'p-other')).toBeUndefined();
    expect(auth.printer(result.device, 'nowhere')).toBeUndefined();
  });

  it("finds another organization's printer named like an id of this one by its name", async () => {
    printers.push(printer('x-1', 'org-2', 'Mirror'), printer('x-2', 'org-1', 'x-1'));
    const result = await run(basic('04A1', 'demo-pass'));
    if (result.kind !== 'device') throw new Error('expected a device');
    expect(auth.printer(result.device, 'x-1')?.id).toBe('x-2');
  });
});
