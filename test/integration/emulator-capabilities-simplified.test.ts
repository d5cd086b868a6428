import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './emulator-harness.js';
import {
  type CapabilityFixture,
  printerPath as path,
  startCapabilityFixture,
  uploadedDefaults,
} from './emulator-capabilities-support.js';

let f: CapabilityFixture;
let h: CapabilityFixture['h'];
let admin: string;
let alice: string;
const newPrinter = (name: string) => f.newPrinter(name);
const upload = (id: string, body: unknown, host?: string) => f.upload(id, body, host);

beforeAll(async () => {
  f = await startCapabilityFixture();
  ({ h, admin, alice } = f);
});
afterAll(async () => {
  await f.h.close();
});

describe('simplified capabilities', () => {
  let id: string;
  beforeAll(async () => {
    id = await newPrinter('Caps simplified');
    await upload(id, uploadedDefaults());
  });
  const patch = (body: unknown, token = admin) =>
    call(h.baseUrl, 'PATCH', path(id, 'capabilities/'), token, body);

  it('GET capabilities and default_capabilities start equal', async () => {
    const expected = {
      color_supported: true,
      duplex_supported: true,
      trays: [
        { index: 7, name: null, original_name: 'Automatic', enabled: true },
        { index: 1, name: null, original_name: 'Tray 1', enabled: true },
        { index: 4, name: null, original_name: 'Manual feed', enabled: true },
      ],
    };
    expect((await call(h.baseUrl, 'GET', path(id, 'capabilities'), admin)).body).toEqual(expected);
    expect((await call(h.baseUrl, 'GET', path(id, 'default_capabilities'), admin)).body).toEqual(expected);
  });

  it('PATCH renames and disables trays and switches color off; defaults stay', async () => {
    const res = await patch({
      color_supported: false,
      trays: [
        { index: 1, name: 'Letterhead', original_name: 'Tray 1' },
        { index: 4, enabled: false },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      color_supported: false,
      duplex_supported: true,
      trays: [
        { index: 7, name: null, original_name: 'Automatic', enabled: true },
        { index: 1, name: 'Letterhead', original_name: 'Tray 1', enabled: true },
        { index: 4, name: null, original_name: 'Manual feed', enabled: false },
      ],
    });
    expect((await call(h.baseUrl, 'GET', path(id, 'capabilities'), admin)).body).toEqual(res.body);
    const defaults = await call(h.baseUrl, 'GET', path(id, 'default_capabilities'), admin);
    expect(defaults.body.color_supported).toBe(true);
    expect(defaults.body.trays[1].name).toBeNull();
  });

  const bad: [string, unknown, string, RegExp][] = [
    [
      'a name equal to another tray name',
      { trays: [{ index: 7, name: 'tray 1' }] },
      'trays[7].name',
      /duplicate/,
    ],
    [
      'a name equal to another custom name',
      { trays: [{ index: 4, name: 'Letterhead' }] },
      'trays[4].name',
      /duplicate/,
    ],
    [
      'original_name changed',
      { trays: [{ index: 1, original_name: 'Drawer' }] },
      'trays[0].original_name',
      /cannot be changed/,
    ],
    [
      'an unknown tray index',
      { trays: [{ index: 99, enabled: false }] },
      'trays[0].index',
      /index of a tray \(7, 1, 4\)/,
    ],
    ['enabled not a boolean', { trays: [{ index: 1, enabled: 'no' }] }, 'trays[0].enabled', /boolean/],
    ['a name too long', { trays: [{ index: 1, name: 'n'.repeat(256) }] }, 'trays[0].name', /255/],
    ['an unknown tray field', { trays: [{ index: 1, paper: 'A4' }] }, 'trays[0].paper', /unknown field/],
    ['trays not an array', { trays: {} }, 'trays', /array/],
    ['color_supported not a boolean', { color_supported: 'no' }, 'color_supported', /boolean/],
    ['duplex_supported changed', { duplex_supported: false }, 'duplex_supported', /cannot be changed/],
    ['an unknown field', { staple: true }, 'staple', /unknown field/],
  ];

  it.each(bad)('400 for %s, naming the field and the rule', async (_n, body, field, rule) => {
    const res = await patch(body);
    expect(res.status).toBe(400);
    const match = res.body.errors.find((e: { field: string }) => e.field === field);
    expect(match, JSON.stringify(res.body.errors)).toBeDefined();
    expect(match.rule).toMatch(rule);
  });

  it('a name back to null (or the original) clears it; echoing duplex_supported is fine; non-admin 403', async () => {
    const res = await patch({ duplex_supported: true, trays: [{ index: 1, name: null }] });
    expect(res.status).toBe(200);
    expect(res.body.trays[1]).toEqual({ index: 1, name: null, original_name: 'Tray 1', enabled: true });
    const again = await patch({ trays: [{ index: 1, name: 'Tray 1' }] });
    expect(again.body.trays[1].name).toBeNull();
    expect((await patch({ color_supported: true }, alice)).status).toBe(403);
  });

  it('color_supported true is refused on a printer without color', async () => {
    const mono = await newPrinter('Caps mono');
    await upload(mono, { ...uploadedDefaults(), options: 1 });
    const res = await call(h.baseUrl, 'PATCH', path(mono, 'capabilities'), admin, { color_supported: true });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      field: 'color_supported',
      rule: expect.stringMatching(/no color/),
    });
  });
});

describe('a printer that names two of its own trays alike (rule 2 checks custom names only)', () => {
  it('takes a PATCH that renames nothing, and one that renames a tray apart', async () => {
    const id = await newPrinter('Caps twin trays');
    const trays = [
      { index: 1, name: 'Auto', default: true },
      { index: 2, name: 'Auto', default: false },
    ];
    expect((await upload(id, { ...uploadedDefaults(), trays })).status).toBe(204);
    const off = await call(h.baseUrl, 'PATCH', path(id, 'capabilities/'), admin, { color_supported: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.color_supported).toBe(false);
    const renamed = await call(h.baseUrl, 'PATCH', path(id, 'capabilities/'), admin, {
      trays: [{ index: 2, name: 'Auto 2' }],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.trays.map((t: { name: string | null }) => t.name)).toEqual([null, 'Auto 2']);
    const clash = await call(h.baseUrl, 'PATCH', path(id, 'capabilities/'), admin, {
      trays: [{ index: 1, name: 'auto 2' }],
    });
    expect(clash.status).toBe(400);
    // Two equal custom names: the later tray in the printer's order is named.
    expect(clash.body.errors).toEqual([
      expect.objectContaining({ field: 'trays[2].name', rule: 'must not duplicate the name of tray 1' }),
    ]);
  });
});

describe('GetPrinterProperties reflects the merged result', () => {
  it('custom tray names, disabled trays removed, overridden papers, color off', async () => {
    const id = await newPrinter('Caps sfapi');
    await upload(id, uploadedDefaults());
    const props = async () =>
      (await call(h.baseUrl, 'GET', `/sfapi/GetPrinterProperties/?id=${id}`, admin)).body[0];
    const before = await props();
    expect(before.Trays.map((t: { Name: string }) => t.Name)).toEqual(['Automatic', 'Tray 1', 'Manual feed']);
    expect(before.MediaSupported).toEqual(['A4', 'Letter', 'A3']);
    expect(before.ColorSupported).toBe(true);

    await call(h.baseUrl, 'PATCH', path(id, 'capabilities'), admin, {
      color_supported: false,
      trays: [
        { index: 1, name: 'Letterhead' },
        { index: 7, enabled: false },
      ],
    });
    const legal = uploadedDefaults()
      .papers.slice(0, 1)
      .map((p) => ({
        ...p,
        index: 5,
        name: 'Legal',
        ysize: 3556,
        printable_area: { ...p.printable_area, printable_length: 3472 },
      }));
    await call(h.baseUrl, 'PATCH', path(id, 'blob_capabilities/papers'), admin, { custom: legal });
    const after = await props();
    expect(after).toMatchObject({ Id: id, Name: 'Caps sfapi', ColorSupported: false, Color: false });
    expect(after.Trays).toEqual([
      { Index: 1, Name: 'Letterhead', Default: true },
      { Index: 4, Name: 'Manual feed', Default: false },
    ]);
    expect(after.Default).toMatchObject({
      Tray: 'Letterhead',
      TrayIndex: 1,
      Paper: 'Legal',
      PaperId: 5,
      Color: 'Monochrome',
    });
    expect(after.MediaSupported).toEqual(['Legal']);
    expect(after.MediaSupportedId).toEqual([5]);
    expect(after.PaperFormats).toEqual([{ Id: 5, Name: 'Legal', XRes: 2100, YRes: 3556, Default: true }]);
    const all = (await call(h.baseUrl, 'GET', '/sfapi/GetPrinterProperties/', admin)).body;
    expect(all.find((p: { Id: string }) => p.Id === id)).toEqual(after);
  });

  it('deleting the printer removes its capabilities: a new printer of the same name starts clean', async () => {
    const id = await newPrinter('Caps delete');
    await upload(id, uploadedDefaults());
    await call(h.baseUrl, 'PATCH', path(id, 'blob_capabilities/options'), admin, { custom: 0 });
    expect((await call(h.baseUrl, 'DELETE', path(id), admin)).status).toBe(204);
    expect((await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), admin)).status).toBe(404);
    const again = await newPrinter('Caps delete');
    const blob = await call(h.baseUrl, 'GET', path(again, 'blob_capabilities'), admin);
    expect(blob.body.options).toEqual({ default: expect.any(Number), custom: null });
    expect(blob.body.trays.default).toEqual([]);
  });
});
