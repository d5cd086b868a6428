import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlobCapabilities } from '../../src/protocol/capability-merge.js';
import { call, passwordToken } from './emulator-harness.js';
import {
  type CapabilityFixture,
  printerPath as path,
  startCapabilityFixture,
  uploadedDefaults,
  uploadedProperties,
} from './emulator-capabilities-support.js';

let f: CapabilityFixture;
let h: CapabilityFixture['h'];
let admin: string;
let alice: string;
let connectorId: string;
let otherConnectorId: string;
const newPrinter = (name: string) => f.newPrinter(name);
const upload = (id: string, body: unknown, host?: string) => f.upload(id, body, host);

beforeAll(async () => {
  f = await startCapabilityFixture();
  ({ h, admin, alice, connectorId, otherConnectorId } = f);
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
    const properties = uploadedProperties();
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

describe('PATCH /connector/v1/printers/<id>/properties (only what changed)', () => {
  const propertiesPath = (id: string) => `/connector/v1/printers/${id}/properties`;
  const patch = (id: string, body: unknown, host?: string) =>
    call(h.baseUrl, 'PATCH', propertiesPath(id), admin, body, host ? { 'x-host-id': host } : {});
  const put = (id: string, body: unknown, host?: string) =>
    call(h.baseUrl, 'PUT', propertiesPath(id), admin, body, host ? { 'x-host-id': host } : {});
  const getProperties = async (id: string) =>
    (await call(h.baseUrl, 'GET', `/sfapi/GetPrinterProperties/?id=${id}`, admin)).body[0];
  const blobOf = async (id: string) =>
    (await call(h.baseUrl, 'GET', path(id, 'blob_capabilities'), admin)).body;
  /** A printer with the whole upload (PUT properties with the five defaults) done. */
  const uploaded = async (name: string) => {
    const id = await newPrinter(name);
    const res = await put(id, { properties: uploadedProperties(), blob_capabilities: uploadedDefaults() });
    expect(res.status).toBe(204);
    return id;
  };
  const fitted = [
    { index: 7, name: 'Automatic', default: false },
    { index: 1, name: 'Tray 1', default: true },
    { index: 4, name: 'Manual feed', default: false },
    { index: 3, name: 'Tray 3', default: false },
  ];

  it('replaces only the given property fields; GetPrinterProperties shows the merge', async () => {
    const id = await uploaded('Patch properties');
    const Trays = [
      { Index: 2, Name: 'Lower', Default: true },
      { Index: 3, Name: 'Tray 3', Default: false },
    ];
    expect((await patch(id, { properties: { Trays } })).status).toBe(204);
    const after = await getProperties(id);
    expect(after).toMatchObject({ ...uploadedProperties(), Trays, Id: id, Name: 'Patch properties' });
    expect((await blobOf(id)).trays.default).toEqual(uploadedDefaults().trays);
  });

  it('replaces only the given blob capabilities; blob and simplified views show the merge', async () => {
    const id = await uploaded('Patch blob');
    expect((await patch(id, { blob_capabilities: { trays: fitted } })).status).toBe(204);
    const blob = await blobOf(id);
    expect(blob.trays).toEqual({ default: fitted, custom: null });
    for (const name of ['colors', 'options', 'papers', 'resolutions'] as const)
      expect(blob[name].default).toEqual(uploadedDefaults()[name]);
    const simplified = await call(h.baseUrl, 'GET', path(id, 'capabilities'), admin);
    expect(simplified.body.trays.map((t: { original_name: string }) => t.original_name)).toEqual(
      fitted.map((t) => t.name),
    );
    const printer = (await call(h.baseUrl, 'GET', path(id), admin)).body;
    expect(decodeBlobCapabilities(printer.blob_capabilities.Capabilities).trays).toEqual(fitted);
    expect((await getProperties(id)).Driver).toBe(uploadedProperties().Driver);
  });

  it('refuses every bad field at once (400 naming each path) and stores nothing of it', async () => {
    const id = await uploaded('Patch refused');
    const res = await patch(id, {
      properties: { Driver: 'not stored', Trays: 'x', Fonts: [] },
      blob_capabilities: { trays: [{ index: 1, name: '' }], fonts: {}, options: 5 },
      extra: true,
    });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'properties.Trays',
        'properties.Fonts',
        'blob_capabilities.trays[0].name',
        'blob_capabilities.trays[0].default',
        'blob_capabilities.fonts',
        'extra',
      ]),
    );
    expect(fields).not.toContain('blob_capabilities.options');
    expect((await getProperties(id)).Driver).toBe(uploadedProperties().Driver);
    const blob = await blobOf(id);
    expect(blob.options.default).toBe(uploadedDefaults().options);
    expect(blob.trays.default).toEqual(uploadedDefaults().trays);
  });

  it('refuses a partial first upload (400 naming the part and the rule); a complete one is taken', async () => {
    const id = await newPrinter('Patch first');
    const partialBlob = await patch(id, { blob_capabilities: { trays: fitted } });
    expect(partialBlob.status).toBe(400);
    expect(partialBlob.body.errors).toEqual([
      expect.objectContaining({
        field: 'blob_capabilities',
        rule: expect.stringMatching(
          /^the first upload must be complete.*missing colors, options, papers, resolutions/,
        ),
      }),
    ]);
    const partialProperties = await patch(id, { properties: { Trays: [] } });
    expect(partialProperties.status).toBe(400);
    expect(partialProperties.body.field).toBe('properties');
    expect(partialProperties.body.rule).toMatch(/^the first upload must be complete/);
    expect((await blobOf(id)).trays.default).toEqual([]);
    expect((await getProperties(id)).Trays).toEqual([null]);

    const complete = await patch(id, {
      properties: uploadedProperties(),
      blob_capabilities: uploadedDefaults(),
    });
    expect(complete.status).toBe(204);
    expect((await blobOf(id)).trays.default).toEqual(uploadedDefaults().trays);
    expect((await getProperties(id)).Trays).toEqual(uploadedProperties().Trays);
  });

  it('refuses, as the PUT does, a printer of another connector (403), an unknown printer, a token without the scope', async () => {
    const theirs = await f.newPrinter('Patch theirs', otherConnectorId);
    const body = { properties: uploadedProperties(), blob_capabilities: uploadedDefaults() };
    const viaPut = await put(theirs, body, connectorId);
    const viaPatch = await patch(theirs, { blob_capabilities: { trays: fitted } }, connectorId);
    // A connector uploads the properties of its own printers only, as with PUT blob_capabilities.
    expect(viaPut.status).toBe(403);
    expect(viaPatch.status).toBe(403);
    expect(viaPut.body).toMatchObject({ message: expect.stringMatching(/another connector/) });
    const mine = await put(theirs, body, otherConnectorId);
    expect(mine.status).toBe(204);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await patch(unknown, body)).status).toBe(404);
    expect((await put(unknown, body)).status).toBe(404);
    const printingOnly = await passwordToken(h.baseUrl, 'printing');
    for (const method of ['PUT', 'PATCH'] as const)
      expect((await call(h.baseUrl, method, propertiesPath(theirs), printingOnly, body)).status).toBe(403);
  });
});
