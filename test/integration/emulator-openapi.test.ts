/**
 * The OpenAPI 3.1 document of the emulator: /openapi.json passes a real validator
 * (@seriousme/openapi-schema-validator), names every account and partner operation with its
 * response schemas, /docs serves the browser, and the harness's response check (used by every
 * `call()` of the suite) rejects a body that drifts from the document.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponseAgainstOpenApi } from '../support/openapi-responses.js';
import { type Harness, call, passwordToken, startHarness } from './emulator-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** Operations that carry full request and response schemas (docs/emulator.md "OpenAPI"). */
const SCHEMA_OPERATIONS: [string, string, string][] = [
  ['get', '/v1/users/', '200'],
  ['get', '/v1/users/{id}', '200'],
  ['patch', '/v1/users/{id}', '200'],
  ['delete', '/v1/users/{id}', '204'],
  ['post', '/v1/userinvitations/', '201'],
  ['get', '/v1/userinvitations/', '200'],
  ['patch', '/v1/userinvitations/{id}', '200'],
  ['post', '/partner/v1/organizations/', '201'],
  ['get', '/partner/v1/organizations/', '200'],
  ['get', '/partner/v1/organizations/{orgId}', '200'],
  ['patch', '/partner/v1/organizations/{orgId}', '200'],
  ['delete', '/partner/v1/organizations/{orgId}', '204'],
  ['get', '/partner/v1/organizations/{orgId}/members/', '200'],
  ['post', '/partner/v1/organizations/{orgId}/members/', '201'],
  ['get', '/partner/v1/organizations/{orgId}/members/{userId}', '200'],
  ['patch', '/partner/v1/organizations/{orgId}/members/{userId}', '200'],
  ['delete', '/partner/v1/organizations/{orgId}/members/{userId}', '204'],
  ['get', '/partner/v1/users/{userId}/memberships/', '200'],
  ['get', '/partner/v1/users/{userId}/memberships/{orgId}', '200'],
  ['get', '/_emulator/mail', '200'],
];

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await call(h.baseUrl, 'GET', '/openapi.json', undefined);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc.body);
    expect(result).toEqual({ valid: true });
  });

  it('names the account and partner operations with response schemas, and every other route', async () => {
    const doc = (await call(h.baseUrl, 'GET', '/openapi.json', undefined)).body;
    const normalized = Object.fromEntries(
      Object.entries(doc.paths as Record<string, unknown>).map(([k, v]) => [k.replace(/\/$/, ''), v]),
    ) as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [method, path, status] of SCHEMA_OPERATIONS) {
      const op = normalized[path.replace(/\/$/, '')]?.[method];
      expect([method, path, op?.responses[status] !== undefined]).toEqual([method, path, true]);
      expect([method, path, op?.responses['401'] !== undefined || path === '/_emulator/mail']).toEqual([
        method,
        path,
        true,
      ]);
    }
    for (const path of [
      '/sfapi/Print/',
      '/oauth/access_token',
      '/v1/oauth-clients/{clientId}',
      '/printing/v1/printers/{id}',
      '/TPFM/',
    ])
      expect(Object.keys(normalized)).toContain(path.replace(/\/$/, ''));
  });

  it('/docs serves the browsable document', async () => {
    const res = await request(`${h.baseUrl}/docs/`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toContain('swagger-ui');
  });
});

describe('response check of the harness', () => {
  it('accepts a real response and rejects one that drifts from the document', async () => {
    const token = await passwordToken(h.baseUrl, 'account');
    const users = await call(h.baseUrl, 'GET', '/v1/users/', token);
    const user = users.body.results[0];
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', `/v1/users/${user.id}/`, 200, user),
    ).resolves.toBeUndefined();
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', `/v1/users/${user.id}/`, 200, {
        ...user,
        roles: 'admin',
      }),
    ).rejects.toThrow(/does not match \/openapi.json: data\/roles must be array/);
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', '/v1/users/', 200, { ...users.body, secret: 'x' }),
    ).rejects.toThrow(/must NOT have additional properties/);
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', '/v1/users/', 403, { error: 'forbidden' }),
    ).rejects.toThrow(/must have required property 'message'/);
  });
});
