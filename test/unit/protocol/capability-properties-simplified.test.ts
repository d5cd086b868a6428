import { describe, expect, it } from 'vitest';
import type { SimplifiedTray } from '../../../src/protocol/blob-capabilities.js';
import { applySimplifiedToProperties } from '../../../src/protocol/capability-properties.js';
import { a4PrinterProperties } from '../../support/printer-properties-fixture.js';

/** A printer with two trays, the second ('Lower') its default, that does not collate. */
const base = a4PrinterProperties({
  Collate: false,
  Trays: [
    { Index: 1, Name: 'Upper', Default: false },
    { Index: 2, Name: 'Lower', Default: true },
  ],
  Default: { Tray: 'Lower', TrayIndex: 2 },
});

function tray(index: number, name: string | null, enabled = true): SimplifiedTray {
  return { index, name, original_name: `tray ${index}`, enabled };
}

describe('applySimplifiedToProperties', () => {
  it('changes nothing when colour stays on and every tray is enabled without a custom name', () => {
    const simplified = {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, null), tray(2, null)],
    };
    expect(applySimplifiedToProperties(base, simplified)).toEqual(base);
  });
  it('switches colour off, and only then', () => {
    const off = applySimplifiedToProperties(base, {
      color_supported: false,
      duplex_supported: true,
      trays: [],
    });
    expect([off.ColorSupported, off.Color, off.Default.Color]).toEqual([false, false, 'Monochrome']);
    const on = applySimplifiedToProperties(base, {
      color_supported: true,
      duplex_supported: true,
      trays: [],
    });
    expect([on.ColorSupported, on.Color, on.Default.Color]).toEqual([true, true, 'Color']);
  });
  it('shows custom names and keeps the default tray', () => {
    const p = applySimplifiedToProperties(base, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, 'Letterhead'), tray(2, null)],
    });
    expect(p.Trays).toEqual([
      { Index: 1, Name: 'Letterhead', Default: false },
      { Index: 2, Name: 'Lower', Default: true },
    ]);
    expect([p.Default.Tray, p.Default.TrayIndex]).toEqual(['Lower', 2]);
  });
  it('keeps a tray the view does not list, under its own name', () => {
    const p = applySimplifiedToProperties(base, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, 'Letterhead')],
    });
    expect(p.Trays.map((t) => t?.Name)).toEqual(['Letterhead', 'Lower']);
  });
  it('removes a disabled tray and moves the default to the first one left', () => {
    const p = applySimplifiedToProperties(base, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, null), tray(2, null, false)],
    });
    expect(p.Trays).toEqual([{ Index: 1, Name: 'Upper', Default: true }]);
    expect([p.Default.Tray, p.Default.TrayIndex]).toEqual(['Upper', 1]);
  });
  it('answers [null] with no default tray when every tray is disabled', () => {
    const p = applySimplifiedToProperties(base, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, null, false), tray(2, null, false)],
    });
    expect(p.Trays).toEqual([null]);
    expect([p.Default.Tray, p.Default.TrayIndex]).toEqual(['', 0]);
  });
  it('leaves unknown trays ([null]) as they are', () => {
    const unknown = { ...base, Trays: [null] };
    const p = applySimplifiedToProperties(unknown, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, 'Named')],
    });
    expect(p).toEqual(unknown);
  });
  it('leaves the trays as they are, unknown entries too, when the view changes none', () => {
    const mixed = { ...base, Trays: [null, ...base.Trays] };
    const simplified = {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(1, null), tray(2, null)],
    };
    expect(applySimplifiedToProperties(mixed, simplified)).toEqual(mixed);
  });
  it('skips unknown entries among known trays', () => {
    const mixed = { ...base, Trays: [null, ...base.Trays] };
    const p = applySimplifiedToProperties(mixed, {
      color_supported: true,
      duplex_supported: true,
      trays: [tray(2, 'Bottom')],
    });
    expect(p.Trays).toEqual([
      { Index: 1, Name: 'Upper', Default: false },
      { Index: 2, Name: 'Bottom', Default: true },
    ]);
  });
  it('does not change the properties it is given', () => {
    const copy = structuredClone(base);
    applySimplifiedToProperties(base, {
      color_supported: false,
      duplex_supported: true,
      trays: [tray(1, 'X', false)],
    });
    expect(base).toEqual(copy);
  });
});
