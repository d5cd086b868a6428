import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlobCapabilities } from '../../src/protocol/capability-merge.js';
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
let otherConnectorId: string;
const newPrinter = (name: string) => f.newPrinter(name);
const upload = (id: string, body: unknown, host?: string) => f.upload(id, body, host);

beforeAll(async () => {
  f = await startCapabilityFixture();
  ({ h, admin, alice, otherConnectorId } = f);
});
afterAll(async () => {
  await f.h.close();
});

describe('the connector uploads default blob capabilities', () => {
  it('before any upload the defaults are conservative and the Printer shows no blob_capabilities', async () => {
    const id = await newPrinter('Caps none');
    const blob = await call(h.baseUrl, 'GET', path(id, 'blob_capabilities/'), admin);
    expect(blob.status).toBe(200);
    expect(blob.body.trays).toEqual({ default: [], custom: null });
    expect(blob.body.papers.default.map((p: { name: string }) => p.name)).toEqual(['A4', 'Letter']);
    expect(blob.body.options.custom).toBeNull();
    expect((await call(h.baseUrl, 'GET', path(id), admin)).body.blob_capabilities).toBeNull();
  });

  it('PUT stores the five defaults (204); GET shows them; the Printer carries them encoded', async () => {
    const id = await newPrinter('Caps upload');
    const res = await upload(id, uploadedDefaults());
    expect(res.status).toBe(204);
    const blob = await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), admin);
    for (const [name, value] of Object.entries(uploadedDefaults())) {
      expect(blob.body[name]).toEqual({ default: value, custom: null });
    }
    const printer = (await call(h.baseUrl, 'GET', path(id), admin)).body;
    expect(printer.blob_capabilities).toMatchObject({ Options: 23, Count: 5 });
    expect(decodeBlobCapabilities(printer.blob_capabilities.Capabilities)).toEqual(uploadedDefaults());
    // The wrapped form {defaults: {...}} is accepted too.
    expect((await upload(id, { defaults: uploadedDefaults() })).status).toBe(204);
  });

  it('refuses a bad upload naming each field, and printers of another connector (403)', async () => {
    const id = await newPrinter('Caps bad upload');
    const bad = { ...uploadedDefaults(), options: -1, trays: [{ index: 1, name: '' }] } as Record<
      string,
      unknown
    >;
    delete bad['colors'];
    const res = await upload(id, bad);
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining(['body.colors', 'body.options', 'body.trays[0].name', 'body.trays[0].default']),
    );
    expect((await upload(id, uploadedDefaults(), otherConnectorId)).status).toBe(403);
    expect((await upload('00000000-0000-4000-8000-000000000000', uploadedDefaults())).status).toBe(404);
  });

  it('without a blob upload, uploaded properties give the defaults', async () => {
    const id = await newPrinter('Caps from properties');
    const properties = {
      Driver: 'x',
      Collate: true,
      Color: false,
      ColorSupported: true,
      DuplexSupported: true,
      DuplexMode: 1,
      MediaSupported: ['A4'],
      MediaSupportedId: [9],
      OrientationsSupported: ['Portrait'],
      OrientationsSupportedId: [1],
      PaperFormats: [{ Id: 9, Name: 'A4', XRes: 2100, YRes: 2970, Default: true }],
      Resolutions: ['600', '1200'],
      Trays: [{ Index: 2, Name: 'Lower', Default: true }],
      Default: {
        Duplex: 'None',
        DuplexIndex: 1,
        Color: 'Monochrome',
        Orientation: 'Portrait',
        OrientationIndex: 1,
        Resolution: '1200',
        Paper: 'A4',
        PaperId: 9,
        Tray: 'Lower',
        TrayIndex: 2,
      },
    };
    const put = await call(h.baseUrl, 'PUT', `/connector/v1/printers/${id}/properties`, admin, {
      properties,
    });
    expect(put.status).toBe(204);
    const caps = await call(h.baseUrl, 'GET', path(id, 'default_capabilities'), admin);
    expect(caps.body).toEqual({
      color_supported: true,
      duplex_supported: true,
      trays: [{ index: 2, name: null, original_name: 'Lower', enabled: true }],
    });
    const blob = await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), admin);
    expect(blob.body.resolutions.default).toEqual([
      { value: 600, default: false },
      { value: 1200, default: true },
    ]);

    // Properties and blob defaults in one request (one change, one write); a bad blob stores neither.
    const both = await newPrinter('Caps in one request');
    const propertiesPath = `/connector/v1/printers/${both}/properties`;
    const bad = await call(h.baseUrl, 'PUT', propertiesPath, admin, {
      properties: { ...properties, Driver: 'not stored' },
      blob_capabilities: { ...uploadedDefaults(), options: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('blob_capabilities.options');
    expect((await call(h.baseUrl, 'GET', path(both, 'default_capabilities'), admin)).body.trays).toEqual([]);
    const good = await call(h.baseUrl, 'PUT', propertiesPath, admin, {
      properties,
      blob_capabilities: uploadedDefaults(),
    });
    expect(good.status).toBe(204);
    const stored = await call(h.baseUrl, 'GET', path(both, 'blob_capabilities'), admin);
    for (const [name, value] of Object.entries(uploadedDefaults())) {
      expect(stored.body[name]).toEqual({ default: value, custom: null });
    }
  });
});

describe('PATCH blob_capabilities/<capability>/', () => {
  let id: string;
  beforeAll(async () => {
    id = await newPrinter('Caps patch');
    await upload(id, uploadedDefaults());
  });

  const customs: [string, unknown][] = [
    ['colors', { ...uploadedDefaults().colors, devmode: 1 }],
    ['trays', [{ index: 1, name: 'Only tray', default: true }]],
    ['options', 4],
    [
      'papers',
      [
        {
          index: 5,
          xsize: 2159,
          ysize: 3556,
          name: 'Legal',
          default: true,
          printable_area: {
            left_right_margins: 0,
            top_bottom_margins: 0,
            printable_width: 2159,
            printable_length: 3556,
          },
        },
      ],
    ],
    ['resolutions', [{ value: 1200, default: true }]],
  ];

  it.each(customs)('%s: the custom replaces the default whole; null resets it', async (name, custom) => {
    const res = await call(h.baseUrl, 'PATCH', path(id, `blob_capabilities/${name}/`), admin, { custom });
    expect(res.status).toBe(200);
    const defaults = uploadedDefaults() as unknown as Record<string, unknown>;
    expect(res.body).toEqual({ custom, default: defaults[name] });
    const got = await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), admin);
    expect(got.body[name]).toEqual({ default: defaults[name], custom });
    const reset = await call(h.baseUrl, 'PATCH', path(id, `blob_capabilities/${name}`), admin, {
      custom: null,
    });
    expect(reset.body).toEqual({ custom: null, default: defaults[name] });
  });

  const bad: [string, string, unknown, string, RegExp][] = [
    ['colors not an object', 'colors', 5, 'custom', /object/],
    ['colors missing a field', 'colors', { devmode: 1 }, 'custom.mono_num_colors', /required/],
    [
      'colors devmode 3',
      'colors',
      { ...uploadedDefaults().colors, devmode: 3 },
      'custom.devmode',
      /1 .* or 2/,
    ],
    [
      'colors unknown field',
      'colors',
      { ...uploadedDefaults().colors, hue: 1 },
      'custom.hue',
      /unknown field/,
    ],
    ['trays not an array', 'trays', {}, 'custom', /array/],
    ['tray index text', 'trays', [{ index: 'a', name: 'x', default: true }], 'custom[0].index', /integer/],
    ['tray name empty', 'trays', [{ index: 1, name: ' ', default: true }], 'custom[0].name', /non-empty/],
    [
      'tray index twice',
      'trays',
      [
        { index: 1, name: 'a', default: true },
        { index: 1, name: 'b', default: false },
      ],
      'custom[1].index',
      /unique/,
    ],
    [
      'two default trays',
      'trays',
      [
        { index: 1, name: 'a', default: true },
        { index: 2, name: 'b', default: true },
      ],
      'custom',
      /at most one/,
    ],
    ['options negative', 'options', -2, 'custom', /integer from 0/],
    ['options fraction', 'options', 1.5, 'custom', /integer/],
    [
      'paper without area',
      'papers',
      [{ index: 9, xsize: 2100, ysize: 2970, name: 'A4', default: true }],
      'custom[0].printable_area',
      /required/,
    ],
    [
      'printable area wider than the paper',
      'papers',
      [
        {
          index: 9,
          xsize: 2100,
          ysize: 2970,
          name: 'A4',
          default: true,
          printable_area: {
            left_right_margins: 100,
            top_bottom_margins: 0,
            printable_width: 2100,
            printable_length: 2970,
          },
        },
      ],
      'custom[0].printable_area.printable_width',
      /exceed xsize/,
    ],
    ['resolution zero', 'resolutions', [{ value: 0, default: true }], 'custom[0].value', /integer from 1/],
    [
      'resolution default not boolean',
      'resolutions',
      [{ value: 600, default: 'yes' }],
      'custom[0].default',
      /boolean/,
    ],
  ];

  it.each(bad)('400 when %s, naming the field and the rule', async (_n, name, custom, field, rule) => {
    const res = await call(h.baseUrl, 'PATCH', path(id, `blob_capabilities/${name}`), admin, { custom });
    expect(res.status).toBe(400);
    const match = res.body.errors.find((e: { field: string }) => e.field === field);
    expect(match, JSON.stringify(res.body.errors)).toBeDefined();
    expect(match.rule).toMatch(rule);
  });

  it('400 without custom, 404 for an unknown capability or printer, 403 for a non-admin', async () => {
    const none = await call(h.baseUrl, 'PATCH', path(id, 'blob_capabilities/options'), admin, { value: 1 });
    expect(none.status).toBe(400);
    expect(none.body.field).toBe('custom');
    expect(
      (await call(h.baseUrl, 'PATCH', path(id, 'blob_capabilities/fonts'), admin, { custom: 1 })).status,
    ).toBe(404);
    const missing = path('00000000-0000-4000-8000-000000000000', 'blob_capabilities/options');
    expect((await call(h.baseUrl, 'PATCH', missing, admin, { custom: 1 })).status).toBe(404);
    const user = await call(h.baseUrl, 'PATCH', path(id, 'blob_capabilities/options'), alice, { custom: 1 });
    expect(user.status).toBe(403);
    expect((await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), alice)).status).toBe(200);
  });
});
