import { describe, expect, it } from 'vitest';
import {
  applyEndpointPatch,
  applySettingsPatch,
  type EndpointDraft,
  parseEndpointCreate,
  parseEndpointTest,
  parseEventOrder,
} from '../../../../src/emulator/webhooks/webhook-endpoint-rules.js';
import { thrownValidationErrors } from '../../../support/validation-refusals.js';

/** The fields named by a thrown validation error. */
const fieldsOf = (run: () => unknown): string[] => thrownValidationErrors(run).map((error) => error.field);

const base: EndpointDraft = {
  name: 'Ops',
  url: 'https://hooks.example/print',
  topics: ['printjob_succeeded', 'printjob_failed'],
  disabled: false,
  authenticationScheme: 'basic',
  basicUsername: 'ops',
};

describe('parseEndpointCreate', () => {
  it('fills the defaults: every topic, enabled, no authentication', () => {
    expect(parseEndpointCreate({ name: 'A', url: 'https://a.example/h' })).toEqual({
      name: 'A',
      url: 'https://a.example/h',
      topics: ['printjob_succeeded', 'printjob_failed'],
      disabled: false,
      authenticationScheme: null,
      basicUsername: '',
      basicPassword: null,
    });
  });
  it('drops credentials given without the basic scheme', () => {
    const d = parseEndpointCreate({
      name: 'A',
      url: 'https://a.example/h',
      basic_username: 'u',
      basic_password: 'p',
    });
    expect([d.basicUsername, d.basicPassword]).toEqual(['', null]);
  });
  it.each([
    [{ name: '', url: 'https://a.example' }, ['name']],
    [{ name: 'A', url: 'ftp://a.example' }, ['url']],
    [{ name: 'A', url: 'https://' }, ['url']],
    [{ name: 'A', url: 'https://a.example', topics: [] }, ['topics']],
    [{ name: 'A', url: 'https://a.example', topics: ['printjob_failed', 'printjob_failed'] }, ['topics']],
    [{ name: 'A', url: 'https://a.example', disabled: 'yes' }, ['disabled']],
    [{ name: 'A', url: 'https://a.example', authentication_scheme: 'bearer' }, ['authentication_scheme']],
    [{ name: 'A', url: 'https://a.example', endpoint_id: 'x' }, ['endpoint_id']],
    [{ url: 5 }, ['name', 'url']],
  ])('refuses %j naming %j', (body, fields) => {
    expect(fieldsOf(() => parseEndpointCreate(body))).toEqual(fields);
  });
  it('refuses a body that is not an object', () => {
    expect(fieldsOf(() => parseEndpointCreate([]))).toEqual(['body']);
  });
});

describe('applyEndpointPatch', () => {
  it('changes only the fields present and keeps the stored password (undefined)', () => {
    expect(applyEndpointPatch(base, { name: 'Renamed' })).toEqual({
      ...base,
      name: 'Renamed',
      basicPassword: undefined,
    });
  });
  it('sets and removes the password', () => {
    expect(applyEndpointPatch(base, { basic_password: 'new-pass' }).basicPassword).toBe('new-pass');
    expect(applyEndpointPatch(base, { basic_password: null }).basicPassword).toBeNull();
  });
  it('authentication_scheme null removes the credentials', () => {
    const d = applyEndpointPatch(base, { authentication_scheme: null });
    expect([d.authenticationScheme, d.basicUsername, d.basicPassword]).toEqual([null, '', null]);
  });
  it.each(['name', 'url', 'topics', 'disabled'])('refuses null for %s', (field) => {
    expect(fieldsOf(() => applyEndpointPatch(base, { [field]: null }))).toEqual([field]);
  });
});

describe('parseEndpointTest', () => {
  it('needs url and one topic', () => {
    expect(fieldsOf(() => parseEndpointTest({}))).toEqual(['topic', 'url']);
    expect(
      fieldsOf(() => parseEndpointTest({ url: 'https://a.example', topic: ['printjob_failed'] })),
    ).toEqual(['topic']);
  });
  it('reads the credentials', () => {
    expect(
      parseEndpointTest({
        url: 'https://a.example',
        topic: 'printjob_failed',
        authentication_scheme: 'basic',
        basic_username: 'u',
        basic_password: 'p',
      }),
    ).toEqual({
      url: 'https://a.example',
      topic: 'printjob_failed',
      authenticationScheme: 'basic',
      basicUsername: 'u',
      basicPassword: 'p',
    });
  });
});

describe('applySettingsPatch', () => {
  const off = { file_name_obfuscated: false, user_email_disabled: false, user_name_disabled: false };
  it('merges booleans; null resets to false', () => {
    const on = applySettingsPatch(off, { file_name_obfuscated: true, user_name_disabled: true });
    expect(on).toEqual({ file_name_obfuscated: true, user_email_disabled: false, user_name_disabled: true });
    expect(applySettingsPatch(on, { user_name_disabled: null })).toEqual({
      ...on,
      user_name_disabled: false,
    });
  });
  it('refuses unknown fields and non-booleans', () => {
    expect(fieldsOf(() => applySettingsPatch(off, { user_email_disabled: 'true', other: 1 }))).toEqual([
      'other',
      'user_email_disabled',
    ]);
  });
});

describe('parseEventOrder', () => {
  it.each([
    [undefined, ['created']],
    ['-created', ['-created']],
    ['created,-event_id', ['created', '-event_id']],
    [' -event_id , created ', ['-event_id', 'created']],
  ])('reads %j', (raw, keys) => {
    expect(parseEventOrder(raw)).toEqual(keys);
  });
  it.each(['name', 'created,-created', 'created,,event_id'])('refuses %j', (raw) => {
    expect(fieldsOf(() => parseEventOrder(raw))).toEqual(['order']);
  });
});
