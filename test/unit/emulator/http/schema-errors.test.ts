import { describe, expect, it } from 'vitest';
import { fieldOf, schemaErrorsToValidation } from '../../../../src/emulator/http/schema-errors.js';

const err = (instancePath: string, params: Record<string, unknown> = {}, message = 'must be string') => ({
  keyword: 'type',
  instancePath,
  schemaPath: '#',
  params,
  message,
});

describe('schema errors', () => {
  it.each([
    [err('/topics/0'), 'body', 'topics[0]'],
    [err('/a~1b/c'), 'body', 'a/b.c'],
    [err('', { missingProperty: 'name' }), 'body', 'name'],
    [err(''), 'body', 'body'],
    [err('/limit'), 'querystring', 'limit'],
    [err('/x-host-id'), 'headers', 'headers.x-host-id'],
  ])('names the field of %j in %s as %s', (e, part, field) => {
    expect(fieldOf(e, part)).toBe(field);
  });
  it('becomes ValidationErrors with the rule of each error', () => {
    const result = schemaErrorsToValidation([err('', { missingProperty: 'url' }), err('/name')], 'body');
    expect(result.errors.map((e) => [e.field, e.rule])).toEqual([
      ['url', 'is required'],
      ['name', 'must be string'],
    ]);
  });
});
