/**
 * Shared setup of the capability integration tests: an emulator with two connectors of the demo
 * admin, tokens of the admin and of alice (not an admin), what a connector uploads (blob
 * defaults, properties), and helpers to create printers and upload their default blob
 * capabilities. `close()` stops the emulator.
 */
import { COLOR_COLORS } from '../support/blob-fixtures.js';
import type { BlobCapabilities } from '../../src/protocol/blob-capabilities.js';
import type { PrinterCapabilityProperties } from '../../src/protocol/printer-properties.js';
import { a4PrinterProperties } from '../support/printer-properties-fixture.js';
import {
  createPrinter,
  type CallResult,
  call,
  DEMO,
  type Harness,
  passwordToken,
  registration,
  startHarness,
} from './emulator-harness.js';

/** What a connector uploads for a color duplex printer with three trays. */
export function uploadedDefaults(): BlobCapabilities {
  const area = (x: number, y: number) => ({
    left_right_margins: 84,
    top_bottom_margins: 84,
    printable_width: x - 84,
    printable_length: y - 84,
  });
  return {
    colors: COLOR_COLORS,
    trays: [
      { index: 7, name: 'Automatic', default: false },
      { index: 1, name: 'Tray 1', default: true },
      { index: 4, name: 'Manual feed', default: false },
    ],
    options: 1 | 2 | 4 | 16,
    papers: [
      { index: 9, xsize: 2100, ysize: 2970, name: 'A4', default: true, printable_area: area(2100, 2970) },
      {
        index: 1,
        xsize: 2159,
        ysize: 2794,
        name: 'Letter',
        default: false,
        printable_area: area(2159, 2794),
      },
      { index: 8, xsize: 2970, ysize: 4200, name: 'A3', default: false, printable_area: area(2970, 4200) },
    ],
    resolutions: [
      { value: 300, default: false },
      { value: 600, default: true },
    ],
  };
}

/** What a connector uploads as the properties of a mono duplex printer with one tray, 'Lower'. */
export function uploadedProperties(): PrinterCapabilityProperties {
  return a4PrinterProperties({
    Driver: 'x',
    Color: false,
    Resolutions: ['600', '1200'],
    Trays: [{ Index: 2, Name: 'Lower', Default: true }],
    Default: { Color: 'Monochrome', Resolution: '1200', Tray: 'Lower', TrayIndex: 2 },
  });
}

/** The admin API path of a printer, with an optional rest. */
export const printerPath = (id: string, rest = ''): string => `/printing/v1/printers/${id}/${rest}`;

/** The body of an upload's answer: empty (204) or a 400 listing every broken rule. */
export type UploadAnswer = { errors: { field: string; rule: string }[] };

/** A running emulator with what the capability tests need. */
export interface CapabilityFixture {
  h: Harness;
  admin: string;
  alice: string;
  connectorId: string;
  otherConnectorId: string;
  /** Creates an Online printer on the connector (default: the first) and returns its id. */
  newPrinter(name: string, host?: string): Promise<string>;
  /** PUT /connector/v1/printers/<id>/blob_capabilities as the connector (default: the first). */
  upload(id: string, body: unknown, host?: string): Promise<CallResult<UploadAnswer>>;
}

/** Starts the emulator and registers two connectors; the caller closes `h`. */
export async function startCapabilityFixture(): Promise<CapabilityFixture> {
  const h = await startHarness();
  const admin = await passwordToken(h.baseUrl, 'printing printing.connectors');
  const alice = await passwordToken(h.baseUrl, 'printing printing.connectors', DEMO.user);
  const reg = async (serial: string) =>
    (await call(h.baseUrl, 'POST', '/connector/v1/register', admin, registration(serial))).body.id as string;
  const connectorId = await reg('CAP-1');
  const otherConnectorId = await reg('CAP-2');
  return {
    h,
    admin,
    alice,
    connectorId,
    otherConnectorId,
    newPrinter: (name, host = connectorId) => createPrinter(h.baseUrl, admin, host, name),
    upload: (id, body, host = connectorId) =>
      call(h.baseUrl, 'PUT', `/connector/v1/printers/${id}/blob_capabilities`, admin, body, {
        'x-host-id': host,
      }),
  };
}
