import { describe, expect, it } from 'vitest';
import { organizationScope } from '../../../../src/emulator/store/organization-scope.js';

describe('organizationScope', () => {
  it.each([
    ['every organization, no condition', undefined, [], { clause: '', params: [] }],
    ['one organization', 'org-1', [], { clause: 'WHERE organization_id = ?', params: ['org-1'] }],
    [
      'every organization, more conditions',
      undefined,
      ['deleted_at IS NULL', 'expires_at > ?'],
      { clause: 'WHERE deleted_at IS NULL AND expires_at > ?', params: [] },
    ],
    [
      'one organization first, then the conditions',
      'org-2',
      ['released_job_id IS NULL'],
      { clause: 'WHERE organization_id = ? AND released_job_id IS NULL', params: ['org-2'] },
    ],
  ])('%s', (_name, organizationId, where, expected) => {
    expect(organizationScope('organization_id', organizationId, where)).toEqual(expected);
  });

  it('names the column it is given (an alias of a joined table)', () => {
    expect(organizationScope('e.organization_id', 'org-3').clause).toBe('WHERE e.organization_id = ?');
  });
});
