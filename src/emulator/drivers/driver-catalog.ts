/**
 * The printer driver catalog: one JSON file per driver under drivers/printers/ (id, name,
 * readable_name, vendor, os, arch, match {manufacturers, models}, compact capabilities), read and
 * checked by `start()` (a bad file fails the start, naming file and field), then served from
 * memory. The compact capabilities expand to the spec's blob capabilities. Nothing to clean up.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import { packageRoot } from '../../lib/package-root.js';
import type { Logger } from '../../log/logger.js';
import { type BlobCapabilities, BlobOption } from '../../protocol/blob-capabilities.js';
import { CUSTOM_PAPER_ID, paperById } from '../../protocol/paper-sizes.js';

/** The default catalog directory: drivers/printers/ at the repository (or package) root. */
export const DEFAULT_DRIVER_DIR = join(packageRoot(), 'drivers', 'printers');

/** Operating systems of the spec's Driver object. */
export const DRIVER_OS = ['Linux', 'Windows', 'Windows CE'] as const;

/** One driver of the catalog. */
export interface CatalogDriver {
  id: string;
  name: string;
  readable_name: string;
  vendor: string;
  os: (typeof DRIVER_OS)[number];
  arch: string;
  /** Manufacturer names (IEEE 1284 MFG, vendor_name) and model names (MDL, model_name) it serves. */
  match: { manufacturers: string[]; models: string[] };
  capabilities: BlobCapabilities;
}

/** The drivers of drivers/printers/, in memory after start(). */
export class DriverCatalog {
  private drivers: CatalogDriver[] = [];

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Reads every *.json of the directory; throws ValidationErrors naming file and field. */
  async start(): Promise<void> {
    const files = (await readdir(this.dir)).filter((f) => f.endsWith('.json')).sort();
    const loaded: CatalogDriver[] = [];
    for (const file of files) {
      const text = await readFile(join(this.dir, file), 'utf8');
      loaded.push(parseDriverFile(file, JSON.parse(text) as unknown));
    }
    const ids = new Set<string>();
    for (const d of loaded) {
      if (ids.has(d.id)) throw new ValidationError(`${d.name}.id`, 'must be unique in the catalog');
      ids.add(d.id);
    }
    this.drivers = loaded;
    this.logger.info({ drivers: loaded.length }, 'driver catalog loaded');
  }

  /** Every driver, by vendor then readable name. */
  all(): CatalogDriver[] {
    return [...this.drivers].sort(
      (a, b) => a.vendor.localeCompare(b.vendor) || a.readable_name.localeCompare(b.readable_name),
    );
  }

  /** The distinct vendor names, sorted. */
  vendors(): string[] {
    return [...new Set(this.drivers.map((d) => d.vendor))].sort((a, b) => a.localeCompare(b));
  }

  /** The drivers of a vendor (case-insensitive). */
  byVendor(vendor: string): CatalogDriver[] {
    const wanted = vendor.trim().toLowerCase();
    return this.all().filter((d) => d.vendor.toLowerCase() === wanted);
  }

  /** The driver with this id. */
  findById(id: string): CatalogDriver | undefined {
    const wanted = id.toLowerCase();
    return this.drivers.find((d) => d.id === wanted);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface CompactCapabilities {
  color: boolean;
  duplex: boolean;
  collate: boolean;
  landscape: boolean;
  custom_paper: boolean;
  trays: { index: number; name: string }[];
  default_tray: number;
  papers: number[];
  default_paper: number;
  /** Margin on every side, tenths of a millimetre. */
  margin: number;
  resolutions: number[];
  default_resolution: number;
}

/** Checks one catalog file and expands its capabilities; errors are prefixed with the file name. */
export function parseDriverFile(file: string, doc: unknown): CatalogDriver {
  const errors: ValidationError[] = [];
  const fail = (field: string, rule: string): void =>
    void errors.push(new ValidationError(`${file}: ${field}`, rule));
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  if (typeof d['id'] !== 'string' || !UUID.test(d['id'])) fail('id', 'must be a lower-case UUID');
  for (const f of ['name', 'readable_name', 'vendor', 'arch']) {
    if (typeof d[f] !== 'string' || d[f] === '') fail(f, 'must be a non-empty string');
  }
  if (!DRIVER_OS.includes(d['os'] as never)) fail('os', `must be one of ${DRIVER_OS.join(', ')}`);
  const match = d['match'] as CatalogDriver['match'] | undefined;
  for (const f of ['manufacturers', 'models'] as const) {
    const list = match?.[f];
    if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
      fail(`match.${f}`, 'must be a non-empty array of non-empty strings');
    }
  }
  const caps = d['capabilities'] as CompactCapabilities | undefined;
  if (typeof caps !== 'object' || caps === null) fail('capabilities', 'must be an object');
  else checkCompact(caps, fail);
  if (errors.length > 0) throw new ValidationErrors(errors);
  return {
    id: d['id'] as string,
    name: d['name'] as string,
    readable_name: d['readable_name'] as string,
    vendor: d['vendor'] as string,
    os: d['os'] as CatalogDriver['os'],
    arch: d['arch'] as string,
    match: { manufacturers: match!.manufacturers, models: match!.models },
    capabilities: expandCapabilities(caps!),
  };
}

function checkCompact(c: CompactCapabilities, fail: (field: string, rule: string) => void): void {
  for (const f of ['color', 'duplex', 'collate', 'landscape', 'custom_paper'] as const) {
    if (typeof c[f] !== 'boolean') fail(`capabilities.${f}`, 'must be a boolean');
  }
  if (
    !Array.isArray(c.trays) ||
    c.trays.some((t) => !Number.isInteger(t?.index) || typeof t?.name !== 'string')
  ) {
    fail('capabilities.trays', 'must be an array of {index: integer, name: string}');
  } else if (!c.trays.some((t) => t.index === c.default_tray)) {
    fail('capabilities.default_tray', 'must be the index of one of the trays');
  }
  if (!Array.isArray(c.papers) || c.papers.some((id) => id === CUSTOM_PAPER_ID || !paperById(id))) {
    fail('capabilities.papers', 'must be desktop paper ids of protocol/paper-sizes.ts (not 256)');
  } else if (!c.papers.includes(c.default_paper)) {
    fail('capabilities.default_paper', 'must be one of the papers');
  }
  if (!Number.isInteger(c.margin) || c.margin < 0) fail('capabilities.margin', 'must be an integer >= 0');
  if (!Array.isArray(c.resolutions) || c.resolutions.some((r) => !Number.isInteger(r) || r <= 0)) {
    fail('capabilities.resolutions', 'must be an array of positive integers (dpi)');
  } else if (!c.resolutions.includes(c.default_resolution)) {
    fail('capabilities.default_resolution', 'must be one of the resolutions');
  }
}

/** The spec's five blob capabilities of a compact description. */
function expandCapabilities(c: CompactCapabilities): BlobCapabilities {
  return {
    colors: {
      devmode: c.color ? 2 : 1,
      mono_num_colors: 2,
      color_num_colors: c.color ? 16777216 : 2,
      mono_bits_pixel: 1,
      color_bits_pixel: c.color ? 24 : 1,
      mono_planes: 1,
      color_planes: 1,
    },
    trays: c.trays.map((t) => ({ index: t.index, name: t.name, default: t.index === c.default_tray })),
    options:
      (c.duplex ? BlobOption.duplex : 0) |
      (c.color ? BlobOption.color : 0) |
      (c.collate ? BlobOption.collate : 0) |
      (c.custom_paper ? BlobOption.customPaper : 0) |
      (c.landscape ? BlobOption.landscape : 0),
    papers: c.papers.map((id) => {
      const paper = paperById(id)!;
      return {
        index: id,
        xsize: paper.width,
        ysize: paper.length,
        name: paper.name,
        default: id === c.default_paper,
        printable_area: {
          left_right_margins: 2 * c.margin,
          top_bottom_margins: 2 * c.margin,
          printable_width: paper.width - 2 * c.margin,
          printable_length: paper.length - 2 * c.margin,
        },
      };
    }),
    resolutions: c.resolutions.map((value) => ({ value, default: value === c.default_resolution })),
  };
}
