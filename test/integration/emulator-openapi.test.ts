/**
 * The OpenAPI 3.1 document of the emulator: /openapi.json passes a real validator
 * (@seriousme/openapi-schema-validator), names every account and partner operation with its
 * response schemas, documents requests, /docs serves the browser, the harness's response check
 * (used by every `call()` of the suite) rejects a body that drifts from the document or an
 * undeclared answer, and its request check rejects a request off the document that succeeded.
 * Schemas never drop fields on the wire: a field no closed schema names still reaches the client.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRequestAgainstOpenApi } from '../support/openapi-requests.js';
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
  ['get', '/sfapi/GetConfiguration/', '200'],
  ['get', '/sfapi/GetPrinter/', '200'],
  ['get', '/sfapi/GetPrinterProperties/', '200'],
  ['get', '/sfapi/PrepareUpload/', '200'],
  ['post', '/sfapi/Print/', '200'],
  ['post', '/sfapi/Print/', '412'],
  ['get', '/sfapi/Status/', '200'],
  ['post', '/oauth/access_token', '200'],
  ['post', '/oauth/revoke', '200'],
  ['post', '/oauth/pair', '200'],
  ['post', '/v1/oauth-clients/public', '201'],
  ['post', '/v1/oauth-clients/confidential', '201'],
  ['get', '/v1/oauth-clients', '200'],
  ['get', '/v1/oauth-clients/{clientId}', '200'],
  ['patch', '/v1/oauth-clients/{clientId}', '200'],
  ['delete', '/v1/oauth-clients/{clientId}', '204'],
  ['get', '/printing/v1/printers', '200'],
  ['post', '/printing/v1/printers', '201'],
  ['get', '/printing/v1/connectors', '200'],
  ['get', '/printing/v1/groups', '200'],
  ['get', '/printing/v1/users', '200'],
  ['get', '/printing/v1/assignments', '200'],
  ['get', '/printing/v1/drivers', '200'],
  ['post', '/connector/v1/register', '201'],
  ['get', '/connector/v1/jobs', '200'],
  ['post', '/connector/v1/jobs/{id}/claim', '200'],
  ['post', '/connector/v1/events', '200'],
  ['get', '/webhooks/endpoints', '200'],
];

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await call(h.baseUrl, 'GET', '/openapi.json', undefined);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc.body);
    expect(result).toEqual({ valid: true });
  });

  it('names the operations with response schemas and the 401 of their token check', async () => {
    const doc = (await call(h.baseUrl, 'GET', '/openapi.json', undefined)).body;
    const normalized = Object.fromEntries(
      Object.entries(doc.paths as Record<string, unknown>).map(([k, v]) => [k.replace(/\/$/, ''), v]),
    ) as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [method, path, status] of SCHEMA_OPERATIONS) {
      const op = normalized[path.replace(/\/$/, '')]?.[method];
      expect([method, path, op?.responses[status] !== undefined]).toEqual([method, path, true]);
      expect([method, path, op?.responses['401'] !== undefined]).toEqual([method, path, true]);
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
  it('accepts a real response and rejects one that drifts from the document or is undeclared', async () => {
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
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', '/v1/users/', 418, { error: 'teapot', message: 'x' }),
    ).rejects.toThrow('GET /v1/users/ 418: /openapi.json has no JSON response schema for this status');
    await expect(
      checkResponseAgainstOpenApi(h.baseUrl, 'GET', '/no/such/route', 200, { ok: true }),
    ).rejects.toThrow('GET /no/such/route 200: no operation of /openapi.json serves this path');
    const missing = await call(h.baseUrl, 'GET', '/no/such/route', undefined);
    expect(missing.body).toEqual({ error: 'not_found', message: 'no route GET /no/such/route' });
  });
});

describe('request check of the harness', () => {
  const print = (body: unknown) => ({
    method: 'POST',
    path: '/sfapi/Print/',
    contentType: 'application/json',
    body,
  });
  const good = { fileid: 'f1', type: 'pdf', printerid: '5e0c8a4e-3f0b-4d3c-8f2a-9b6a1d7e2c44', copies: 2 };

  it('documents the request of every operation that takes one', async () => {
    const doc = await call(h.baseUrl, 'GET', '/openapi.json', undefined);
    const printBody = doc.body.paths['/sfapi/Print/'].post.requestBody.content['application/json'].schema;
    expect(printBody.required).toEqual(['type', 'printerid']);
    expect(Object.keys(printBody.properties)).toEqual(
      expect.arrayContaining(['pageranges', 'duplexmode', 'paperwidth']),
    );
    const status = doc.body.paths['/sfapi/Status/'].get.parameters;
    expect(status).toEqual([expect.objectContaining({ in: 'query', name: 'id', required: true })]);
    const token = doc.body.paths['/oauth/access_token'].post.requestBody.content;
    expect(Object.keys(token)).toEqual(['application/x-www-form-urlencoded']);
  });

  it('fails a succeeded request the document calls wrong, passes a refused one, and holds offContract to its word', async () => {
    await expect(checkRequestAgainstOpenApi(h.baseUrl, print(good), 200)).resolves.toBeUndefined();
    await expect(checkRequestAgainstOpenApi(h.baseUrl, print({ ...good, copies: '2' }), 200)).rejects.toThrow(
      /POST \/sfapi\/Print\/ 200: the request does not match \/openapi.json \(Print\) yet succeeded:\n {2}body: \/copies must be integer/,
    );
    await expect(
      checkRequestAgainstOpenApi(h.baseUrl, print({ ...good, bogus: 1 }), 400),
    ).resolves.toBeUndefined();
    await expect(
      checkRequestAgainstOpenApi(h.baseUrl, print({ ...good, copies: '2' }), 200, { offContract: true }),
    ).resolves.toBeUndefined();
    await expect(
      checkRequestAgainstOpenApi(h.baseUrl, print(good), 200, { offContract: true }),
    ).rejects.toThrow(/marked offContract, but the request matches/);
    const status = { method: 'GET', path: '/sfapi/Status/?id=J&verbose=1' };
    await expect(checkRequestAgainstOpenApi(h.baseUrl, status, 200)).rejects.toThrow(
      /query parameter verbose: not documented/,
    );
  });
});

describe('schemas never drop a field', () => {
  it('answers carry every field of the resource, the one-time client secret included', async () => {
    const admin = await passwordToken(h.baseUrl, 'account');
    const created = await call(h.baseUrl, 'POST', '/v1/oauth-clients/confidential/', admin, {
      name: 'Fields',
      grant_types: ['authorization_code'],
      redirect_urls: ['https://app.example/cb'],
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([
      'allowed_scopes',
      'client_id',
      'client_secret',
      'client_type',
      'external_description',
      'grant_types',
      'name',
      'redirect_urls',
      'tenant_mode',
    ]);
    const basic = `Basic ${Buffer.from(`${created.body.client_id}:${created.body.client_secret}`).toString('base64')}`;
    const refused = await call(h.baseUrl, 'GET', '/v1/oauth-clients/', undefined, undefined, {});
    expect(refused.status).toBe(401);
    const token = await request(`${h.baseUrl}/oauth/revoke/`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=unknown',
    });
    // The secret on the wire is the real one: the client authenticates with it.
    expect(token.statusCode).toBe(200);
    expect(await token.body.json()).toEqual({});

    const printing = await passwordToken(h.baseUrl, 'printing');
    const printers = await call(h.baseUrl, 'GET', '/printing/v1/printers/', printing);
    expect(Object.keys(printers.body.results[0]).sort()).toEqual([
      'auto_driver_assignment_state',
      'blob_capabilities',
      'can_modify_favorite',
      'connector_id',
      'driver_id',
      'id',
      'is_favorite',
      'location',
      'manual_driver_id',
      'model_name',
      'name',
      'pnp_id',
      'status',
      'supported_formats',
      'tp_id',
      'vendor_name',
    ]);
  });
});
