/**
 * Client authentication at the three OAuth endpoints that take it (POST /oauth/access_token/,
 * /oauth/pair/ and /oauth/revoke/): a wrong secret, by Basic header or form fields, no client
 * at all, and Basic credentials without a colon each get the same answer everywhere, pinned
 * field by field (status, error, error_description, WWW-Authenticate).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO,
  type OAuthHarness,
  TEST_CLIENTS,
  basic,
  formPost,
  startOAuthHarness,
} from './emulator-oauth-harness.js';

let h: OAuthHarness;

beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await h.close();
});

/**
 * Each endpoint with a form that is right but for the client's authentication, and the client
 * whose secret it gets wrong: one per endpoint, so that no client's failures reach the
 * throttle's limit.
 */
const ENDPOINTS: [string, Record<string, string>, string][] = [
  [
    '/oauth/access_token/',
    { grant_type: 'password', username: DEMO.admin.email, password: DEMO.admin.password },
    DEMO.client.id,
  ],
  ['/oauth/pair/', { mode: 'device', scope: 'printing' }, TEST_CLIENTS.tenant.id],
  ['/oauth/revoke/', { token: 'some-token' }, TEST_CLIENTS.noPair.id],
];

/** The body of an invalid_client answer: RFC 6749's fields and the emulator's `message`. */
const answer = (description: string) => ({
  error: 'invalid_client',
  error_description: description,
  message: description,
});

const FAILED = {
  status: 401,
  body: answer('client authentication failed'),
  challenge: 'Basic realm="printrelay"',
};

type Case = [string, Record<string, string>, Record<string, string>, typeof FAILED];

/** The cases for an endpoint whose wrong secrets go to `client`. */
const cases = (path: string, client: string): Case[] => [
  ['a wrong secret in the Basic header', {}, { authorization: basic(client, 'nope') }, FAILED],
  ['a wrong secret in the form', { client_id: client, client_secret: 'nope' }, {}, FAILED],
  ['an unknown client', {}, { authorization: basic(`ghost${path}`, 'x') }, FAILED],
  [
    'no client at all',
    {},
    {},
    {
      status: 401,
      body: answer('client authentication is required (Basic header or client_id)'),
      challenge: 'Basic realm="printrelay"',
    },
  ],
  [
    'Basic credentials without a colon',
    {},
    { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` },
    {
      status: 401,
      body: answer('the Basic credentials must be client_id:client_secret'),
      challenge: 'Basic realm="printrelay"',
    },
  ],
];

describe.each(ENDPOINTS)('POST %s', (path, form, client) => {
  it.each(cases(path, client))('%s', async (_name, extraForm, headers, expected) => {
    const res = await formPost(`${h.baseUrl}${path}`, { ...form, ...extraForm }, headers);
    expect(res.status).toBe(expected.status);
    expect(res.body).toEqual(expected.body);
    expect(res.headers['www-authenticate']).toBe(expected.challenge);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
