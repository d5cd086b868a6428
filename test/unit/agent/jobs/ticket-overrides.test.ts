import { COLOR_COLORS } from '../../../support/blob-fixtures.js';
import { describe, expect, it } from 'vitest';
import type {
  CloudBlobCapabilities,
  PrinterSyncClient,
} from '../../../../src/agent/printer-sync/printer-sync-client.js';
import { TicketOverrides } from '../../../../src/agent/jobs/ticket-overrides.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { createLogger, silentLogger } from '../../../../src/log/logger.js';
import type {
  BlobCapabilities,
  SimplifiedCapabilities,
} from '../../../../src/printing/translate/capabilities/blob-capabilities.js';

const defaults: BlobCapabilities = {
  colors: COLOR_COLORS,
  trays: [
    { index: 1, name: 'Tray 1', default: true },
    { index: 2, name: 'Tray 2', default: false },
  ],
  options: 3,
  papers: [
    {
      index: 9,
      xsize: 2100,
      ysize: 2970,
      name: 'A4',
      default: true,
      printable_area: {
        left_right_margins: 85,
        top_bottom_margins: 85,
        printable_width: 2015,
        printable_length: 2885,
      },
    },
    {
      index: 1,
      xsize: 2159,
      ysize: 2794,
      name: 'Letter',
      default: false,
      printable_area: {
        left_right_margins: 85,
        top_bottom_margins: 85,
        printable_width: 2074,
        printable_length: 2709,
      },
    },
  ],
  resolutions: [{ value: 600, default: true }],
};

function blobView(custom: Partial<Record<keyof BlobCapabilities, unknown>> = {}): CloudBlobCapabilities {
  const view: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(defaults))
    view[name] = { default: value, custom: custom[name as keyof BlobCapabilities] ?? null };
  return view as CloudBlobCapabilities;
}

const simplified = (trays: SimplifiedCapabilities['trays'], color = true): SimplifiedCapabilities => ({
  color_supported: color,
  duplex_supported: true,
  trays,
});

/** A cloud whose answers the test sets; counts the fetches. */
function fakeClient() {
  const state = {
    blob: blobView() as CloudBlobCapabilities | undefined,
    simple: simplified([
      { index: 1, name: null, original_name: 'Tray 1', enabled: true },
      { index: 2, name: null, original_name: 'Tray 2', enabled: true },
    ]) as SimplifiedCapabilities | undefined,
    fetches: 0,
    error: undefined as Error | undefined,
  };
  const client: Pick<PrinterSyncClient, 'blobCapabilities' | 'capabilities'> = {
    blobCapabilities: async () => {
      state.fetches++;
      if (state.error) throw state.error;
      return state.blob;
    },
    capabilities: async () => state.simple,
  };
  return { client, state };
}

function overrides() {
  const clock = new ManualClock();
  const fake = fakeClient();
  const subject = new TicketOverrides({ client: fake.client, clock, logger: silentLogger(), ttlMs: 60_000 });
  return { clock, fake, subject };
}

describe('TicketOverrides', () => {
  it('maps a custom tray name to its tray and a disabled tray to the default tray', async () => {
    const { fake, subject } = overrides();
    fake.state.simple = simplified([
      { index: 1, name: 'Letterhead', original_name: 'Tray 1', enabled: true },
      { index: 2, name: null, original_name: 'Tray 2', enabled: false },
    ]);
    const named = await subject.apply('p1', { copies: 1, tray: { name: 'letterhead' } });
    expect(named).toEqual({ ticket: { copies: 1, tray: { index: 1, name: 'Tray 1' } }, warnings: [] });
    const disabled = await subject.apply('p1', { copies: 1, tray: { index: 2 } });
    expect(disabled.ticket.tray).toEqual({ index: 1, name: 'Tray 1' });
    expect(disabled.warnings).toEqual([expect.stringContaining('disabled by the admin')]);
  });

  it('applies custom blob values over the defaults (papers overridden, color switched off)', async () => {
    const { fake, subject } = overrides();
    fake.state.blob = blobView({ papers: [defaults.papers[1]] });
    fake.state.simple = simplified([{ index: 1, name: null, original_name: 'Tray 1', enabled: true }], false);
    const adjusted = await subject.apply('p1', { copies: 2, color: true, paper: { id: 9, name: 'A4' } });
    expect(adjusted.ticket).toEqual({ copies: 2, color: false, paper: { id: 1, name: 'Letter' } });
    expect(adjusted.warnings).toHaveLength(2);
  });

  it('fetches once per printer within the TTL, again after it or after invalidate()', async () => {
    const { clock, fake, subject } = overrides();
    await Promise.all([subject.apply('p1', { copies: 1 }), subject.apply('p1', { copies: 1 })]);
    await subject.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(1);
    await subject.apply('p2', { copies: 1 });
    expect(fake.state.fetches).toBe(2);
    clock.advance(60_001);
    await subject.apply('p1', { copies: 1 });
    await subject.apply('p2', { copies: 1 });
    expect(fake.state.fetches).toBe(4);
    subject.invalidate(['p1']);
    await subject.apply('p1', { copies: 1 });
    await subject.apply('p2', { copies: 1 });
    expect(fake.state.fetches).toBe(5);
    subject.invalidate();
    await subject.apply('p2', { copies: 1 });
    expect(fake.state.fetches).toBe(6);
  });

  it('sends the ticket unchanged with a warning when the cloud cannot answer, and asks again next job', async () => {
    const { fake, subject } = overrides();
    fake.state.error = new RetryableError('network', 'GET blob_capabilities: ECONNREFUSED');
    const ticket = { copies: 1, tray: { index: 2 } };
    const first = await subject.apply('p1', ticket);
    expect(first).toEqual({ ticket, warnings: [expect.stringContaining('ECONNREFUSED')] });
    fake.state.error = undefined;
    await subject.apply('p1', ticket);
    expect(fake.state.fetches).toBe(2);
  });

  it('sends the ticket unchanged when the cloud holds no capabilities for the printer', async () => {
    const { fake, subject } = overrides();
    fake.state.blob = undefined;
    const result = await subject.apply('p1', { copies: 1, color: true });
    expect(result).toEqual({
      ticket: { copies: 1, color: true },
      warnings: [expect.stringContaining('holds none')],
    });
  });

  it('sends the ticket unchanged, naming them, when capabilities have neither a default nor a custom value', async () => {
    const { fake, subject } = overrides();
    const view = blobView() as unknown as Record<string, { default: unknown; custom: unknown }>;
    view['papers'] = { default: null, custom: null };
    view['resolutions'] = { default: null, custom: null };
    fake.state.blob = view as unknown as CloudBlobCapabilities;
    const ticket = { copies: 1, paper: { id: 9, name: 'A4' } };
    expect(await subject.apply('p1', ticket)).toEqual({
      ticket,
      warnings: ['capabilities: no value for papers, resolutions; ticket sent unchanged'],
    });
  });

  it("takes a capability's custom value when the printer reported no default for it", async () => {
    const { fake, subject } = overrides();
    const view = blobView() as unknown as Record<string, { default: unknown; custom: unknown }>;
    view['papers'] = { default: null, custom: [defaults.papers[1]] };
    fake.state.blob = view as unknown as CloudBlobCapabilities;
    const adjusted = await subject.apply('p1', { copies: 1, paper: { id: 1, name: 'Letter' } });
    expect(adjusted).toEqual({ ticket: { copies: 1, paper: { id: 1, name: 'Letter' } }, warnings: [] });
  });

  it('logs a warning naming the printer and the reason when the cloud cannot answer', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const fake = fakeClient();
    fake.state.error = new RetryableError('network', 'GET blob_capabilities: ECONNREFUSED');
    const subject = new TicketOverrides({ client: fake.client, clock: new ManualClock(), logger });
    await subject.apply('p1', { copies: 1 });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        printer: 'p1',
        error: 'GET blob_capabilities: ECONNREFUSED',
        msg: 'printer capabilities unavailable',
      }),
    ]);
  });

  it('fetches again once exactly the TTL has passed', async () => {
    const { clock, fake, subject } = overrides();
    await subject.apply('p1', { copies: 1 });
    clock.advance(59_999);
    await subject.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(1);
    clock.advance(1);
    await subject.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(2);
  });

  it('keeps capabilities 60 s without a ttlMs, and for the ttlMs given', async () => {
    const clock = new ManualClock();
    const fake = fakeClient();
    const byDefault = new TicketOverrides({ client: fake.client, clock, logger: silentLogger() });
    await byDefault.apply('p1', { copies: 1 });
    clock.advance(59_999);
    await byDefault.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(1);
    clock.advance(1);
    await byDefault.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(2);

    const short = new TicketOverrides({ client: fake.client, clock, logger: silentLogger(), ttlMs: 1_000 });
    await short.apply('p1', { copies: 1 });
    clock.advance(999);
    await short.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(3);
    clock.advance(1);
    await short.apply('p1', { copies: 1 });
    expect(fake.state.fetches).toBe(4);
  });

  it('clear() empties the cache: every printer is fetched again', async () => {
    const { fake, subject } = overrides();
    await subject.apply('p1', { copies: 1 });
    await subject.apply('p2', { copies: 1 });
    subject.clear();
    await subject.apply('p1', { copies: 1 });
    await subject.apply('p2', { copies: 1 });
    expect(fake.state.fetches).toBe(4);
  });
});
