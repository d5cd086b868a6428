import { describe, expect, it } from 'vitest';
import { toHttpError } from '../../../../src/emulator/http/http-errors.js';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  TooManyRequestsError,
  ValidationError,
} from '../../../../src/lib/errors.js';

describe('toHttpError maps the domain errors services raise', () => {
  it.each([
    [new NotFoundError('printer'), 404, { error: 'not_found', message: 'printer not found' }, {}],
    [
      new ConflictError('name: must be unique', 'name'),
      409,
      { error: 'conflict', message: 'name: must be unique', field: 'name' },
      {},
    ],
    [
      new ConflictError('already a member', undefined, 'already_member'),
      409,
      { error: 'already_member', message: 'already a member' },
      {},
    ],
    [new GoneError('the code expired'), 410, { error: 'gone', message: 'the code expired' }, {}],
    [new ForbiddenError('admins only'), 403, { error: 'forbidden', message: 'admins only' }, {}],
    [
      new TooManyRequestsError('slow down', 2_500),
      429,
      { error: 'too_many_requests', message: 'slow down' },
      { 'retry-after': '3' },
    ],
    [
      new TooManyRequestsError('limit reached'),
      429,
      { error: 'too_many_requests', message: 'limit reached' },
      {},
    ],
  ])('%s', (error, status, body, headers) => {
    const mapped = toHttpError(error);
    expect(mapped.status).toBe(status);
    expect(mapped.body).toEqual(body);
    expect(mapped.headers).toEqual(headers);
  });

  it('a validation error names its field and rule', () => {
    const mapped = toHttpError(new ValidationError('copies', 'must be 1 to 999'));
    expect(mapped.status).toBe(400);
    expect(mapped.body).toMatchObject({
      error: 'invalid_request',
      field: 'copies',
      rule: 'must be 1 to 999',
    });
  });

  it('anything unknown is a 500 without details', () => {
    const mapped = toHttpError(new Error('SELECT * FROM secrets failed at /var/lib/x'));
    expect(mapped).toEqual({
      status: 500,
      headers: {},
      body: { error: 'internal_error', message: 'internal error' },
    });
  });
});
