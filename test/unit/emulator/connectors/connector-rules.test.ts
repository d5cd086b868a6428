import { describe, expect, it } from 'vitest';
import { parseRegistration, uniqueName } from '../../../../src/emulator/connectors/connector-rules.js';
import type { ValidationErrors } from '../../../../src/lib/errors.js';

const valid = {
  serial_string: 'S-1',
  type: 'Printserver',
  readable_name: 'Hub',
  hostname: 'h',
  internal_ip: '10.0.0.1',
  external_ip: null,
  os_type: 'Windows',
  sw_version: '1.0',
  supported_formats: 'RAW,PDF,EMF,XPS',
};

describe('parseRegistration', () => {
  it('accepts a full registration and fills missing addresses with null', () => {
    const { internal_ip: _i, external_ip: _e, ...rest } = valid;
    expect(parseRegistration(rest)).toMatchObject({
      internal_ip: null,
      external_ip: null,
      serial_string: 'S-1',
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ serial_string: '' }, 'serial_string'],
    [{ serial_string: 's'.repeat(256) }, 'serial_string'],
    [{ type: 'Virtual' }, 'type'],
    [{ readable_name: 3 }, 'readable_name'],
    [{ hostname: '' }, 'hostname'],
    [{ internal_ip: 5 }, 'internal_ip'],
    [{ os_type: 'Mac' }, 'os_type'],
    [{ sw_version: '' }, 'sw_version'],
    [{ supported_formats: 'PDF,DOCX' }, 'supported_formats'],
    [{ supported_formats: ['PDF'] }, 'supported_formats'],
    [{ management_url: 7 }, 'management_url'],
    [{ extra: true }, 'extra'],
  ])('rejects %o naming %s', (patch, field) => {
    try {
      parseRegistration({ ...valid, ...patch });
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationErrors).errors.map((e) => e.field)).toEqual([field]);
    }
  });
});

describe('uniqueName', () => {
  it('adds the first free counter', () => {
    const taken = new Set(['Hub', 'Hub (2)']);
    expect(uniqueName('Hub', (n) => taken.has(n))).toBe('Hub (3)');
    expect(uniqueName('Free', (n) => taken.has(n))).toBe('Free');
  });

  it('stays within 255 characters', () => {
    const long = 'x'.repeat(255);
    const name = uniqueName(long, (n) => n === long);
    expect(name.length).toBe(255);
    expect(name.endsWith(' (2)')).toBe(true);
  });
});
