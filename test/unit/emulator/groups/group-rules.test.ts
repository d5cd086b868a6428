import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../../src/lib/errors.js';
import {
  parseAssignmentChange,
  parseGroupInput,
  parsePrintingUserInput,
} from '../../../../src/emulator/groups/group-rules.js';

const G = '11111111-1111-4111-8111-111111111111';

function fields(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationErrors) return error.errors.map((e) => e.field);
    throw error;
  }
  return [];
}

describe('parseGroupInput', () => {
  it('create: name required, description optional, unknown fields ignored', () => {
    expect(parseGroupInput({ name: 'A', extra: 1 }, 'create')).toEqual({ fields: { name: 'A' } });
    expect(fields(() => parseGroupInput({}, 'create'))).toEqual(['name']);
  });

  it('update: name and description required, unknown fields rejected, read-only echoes ignored', () => {
    expect(fields(() => parseGroupInput({ extra: 1 }, 'update'))).toEqual(['extra', 'name', 'description']);
    const input = parseGroupInput({ id: G, num_members: 3, name: 'B', description: null }, 'update');
    expect(input.fields).toEqual({ name: 'B', description: '' });
  });

  it('origin and organization_id', () => {
    expect(
      parseGroupInput({ name: 'A', origin: { provider: 'azure' } }, 'create').fields.originProvider,
    ).toBe('azure');
    expect(fields(() => parseGroupInput({ name: 'A', origin: 'x', organization_id: 'y' }, 'create'))).toEqual(
      ['origin', 'organization_id'],
    );
  });
});

describe('parsePrintingUserInput', () => {
  it('groups required; names each bad group_id by index; lowercases and keeps switches', () => {
    expect(fields(() => parsePrintingUserInput({}))).toEqual(['groups']);
    expect(fields(() => parsePrintingUserInput({ groups: [{ group_id: G }, {}] }))).toEqual([
      'groups[1].group_id',
    ]);
    const input = parsePrintingUserInput({
      groups: [{ group_id: G.toUpperCase() }],
      myprinters_enabled: true,
    });
    expect(input.groups.map((g) => g.groupId)).toEqual([G]);
    expect(input.settings).toEqual({ myprintersEnabled: true });
  });
});

describe('parseAssignmentChange', () => {
  it('reads the groups of every element with force_chosen', () => {
    const refs = parseAssignmentChange({
      assignment: [{ settings: null, groups: [{ group_id: G, force_chosen: true }] }],
    });
    expect(refs).toEqual([{ groupId: G, field: 'assignment[0].groups[0].group_id', forceChosen: true }]);
  });

  it('names the broken field', () => {
    expect(fields(() => parseAssignmentChange({}))).toEqual(['assignment']);
    expect(
      fields(() => parseAssignmentChange({ assignment: [{ groups: [{ group_id: G, force_chosen: 1 }] }] })),
    ).toEqual(['assignment[0].groups[0].force_chosen']);
    expect(fields(() => parseAssignmentChange({ assignment: [{ groups: [], other: 1 }] }))).toEqual([
      'assignment[0].other',
    ]);
  });
});
