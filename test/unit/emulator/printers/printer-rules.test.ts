import { describe, expect, it } from 'vitest';
import { type PrinterWriteMode, parsePrinterInput } from '../../../../src/emulator/printers/printer-rules.js';
import { printerProperties } from '../../../../src/emulator/printers/printer-wire.js';
import type { PrinterRecord } from '../../../../src/emulator/printers/printer-repo.js';
import type { ValidationErrors } from '../../../../src/lib/errors.js';

const C = '6f1c1d7e-1111-4222-8333-444455556666';

function fields(body: unknown, mode: PrinterWriteMode): string[] {
  try {
    parsePrinterInput(body, mode);
    return [];
  } catch (error) {
    return (error as ValidationErrors).errors.map((e) => e.field);
  }
}

describe('parsePrinterInput', () => {
  it.each<[PrinterWriteMode, Record<string, unknown>, string[]]>([
    ['create', { name: 'a', status: 'Online' }, []],
    ['create', { status: 'Online' }, ['name']],
    ['create', { name: 'a' }, ['status']],
    ['create', { name: 'a', status: 'Online', tp_id: '12' }, []],
    ['create', { name: 'a', status: 'Online', tp_id: 2147483646 }, []],
    ['create', { name: 'a', status: 'Online', tp_id: 2147483647 }, ['tp_id']],
    ['create', { name: 'a', status: 'Online', tp_id: 0 }, ['tp_id']],
    ['create', { name: 'a', status: 'Online', supported_formats: 'RAW, pdf' }, []],
    ['create', { name: 'a', status: 'Online', supported_formats: ['EMF'] }, ['supported_formats']],
    ['create', { name: 'n'.repeat(255), status: 'Offline' }, []],
    ['create', { name: 'n'.repeat(256), status: 'Offline' }, ['name']],
    ['create', { name: 'a', status: 'Online', vendor_name: null }, []],
    ['create', { name: 'a', status: 'Online', model_name: 5 }, ['model_name']],
    ['create', { name: 'a', status: 'Online', driver_id: null }, []],
    ['replace', { name: 'a', status: 'Online' }, ['connector_id']],
    ['replace', { name: 'a', status: 'Online', connector_id: C }, []],
    ['replace', { name: 'a', status: 'Online', connector_id: 'x' }, ['connector_id']],
    [
      'replace',
      { id: 'x', name: 'a', status: 'Online', connector_id: C, is_favorite: true, blob_capabilities: null },
      [],
    ],
    ['patch', {}, []],
    ['patch', { location: 'Hall' }, []],
    ['patch', { status: 'online' }, ['status']],
    ['patch', { nickname: 'x' }, ['nickname']],
  ])('%s %o -> %o', (mode, body, expected) => {
    expect(fields(body, mode)).toEqual(expected);
  });

  it('normalizes formats to upper case without duplicates', () => {
    expect(parsePrinterInput({ supported_formats: ['raw', 'RAW', 'pdf'] }, 'patch').supportedFormats).toEqual(
      ['RAW', 'PDF'],
    );
  });

  // Found by fuzzing: a form body with these keys found Object's members and answered 500.
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'names %s as an unknown field',
    (field) => {
      const body = JSON.parse(`{"${field}": "x"}`) as Record<string, unknown>;
      let caught: ValidationErrors | undefined;
      try {
        parsePrinterInput(body, 'patch');
      } catch (error) {
        caught = error as ValidationErrors;
      }
      expect(caught?.errors.map((e) => e.message)).toEqual([`${field}: unknown field`]);
    },
  );

  it('rejects a body that is not an object', () => {
    expect(fields([], 'patch')).toEqual(['body']);
  });
});

describe('printerProperties', () => {
  const record: PrinterRecord = {
    id: 'p1',
    organizationId: 'o',
    connectorId: C,
    name: 'Front',
    status: 'Online',
    tpId: 4,
    supportedFormats: ['PDF'],
    vendorName: '',
    modelName: '',
    location: 'Lobby',
    pnpId: '',
    driverId: null,
    manualDriverId: null,
    properties: null,
    createdAt: 0,
    updatedAt: 0,
  };

  it('gives conservative defaults with Trays [null] before an upload', () => {
    const p = printerProperties(record);
    expect(p).toMatchObject({
      Id: 'p1',
      Name: 'Front',
      Location: 'Lobby',
      TPUID: 4,
      Trays: [null],
      ColorSupported: false,
      DuplexSupported: false,
    });
    expect(p.PaperFormats.find((f) => f.Default)?.Name).toBe('A4');
  });
});
