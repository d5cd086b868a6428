/**
 * The emulator's OpenAPI document declares every answer: each operation has a success answer
 * (a JSON schema, another content type, or an empty body), every declared error status carries
 * the shared error body (or an HTML/XML/text page where the route answers one), and every route
 * behind a bearer token declares 401 and 403, and every operation has a unique operationId (the
 * spec's name where it gives one). Built in-process; nothing listens.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEmulatorSeed } from '../../../../src/config/demo-seed.js';
import { type Emulator, createEmulator } from '../../../../src/emulator/app.js';
import { ErrorBodySchema } from '../../../../src/emulator/http/schemas.js';
import { silentLogger } from '../../../../src/log/logger.js';

interface Response {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
}

let emulator: Emulator;
let dataDir: string;
let operations: { id: string; op: Operation }[];
const NO_BODY = new Set(['201', '204', '303']);
/** 4xx answers the spec gives a body of their own: Print's fetch still running. */
const SPEC_BODIES = new Set(['POST /sfapi/Print/ 412']);
const errorBody = JSON.parse(JSON.stringify(ErrorBodySchema));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'openapi-unit-'));
  emulator = await createEmulator({
    db: ':memory:',
    dataDir,
    seed: defaultEmulatorSeed(),
    logger: silentLogger(),
  });
  const res = await emulator.app.inject({ method: 'GET', url: '/openapi.json' });
  const doc = res.json() as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })),
  );
});
afterAll(async () => {
  await emulator?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Statuses of an operation whose answer is neither a schema nor a documented empty body. */
function undescribed(op: Operation): string[] {
  return Object.entries(op.responses ?? {})
    .filter(([status, r]) => !r.content && !NO_BODY.has(status))
    .map(([status]) => status);
}

describe('/openapi.json', () => {
  it('lists every operation family', () => {
    const ids = operations.map((o) => o.id);
    expect(ids.length).toBeGreaterThanOrEqual(100);
    for (const id of [
      'GET /sfapi/GetPrinterProperties/',
      'POST /oauth/access_token',
      'GET /.well-known/openid-configuration',
      'POST /v1/oauth-clients/confidential',
      'GET /printing/v1/assignments',
      'POST /connector/v1/jobs/{id}/claim',
      'GET /TPFM/',
      'PUT /storage/uploads/{fileId}',
      'DELETE /partner/v1/organizations/{orgId}',
      'GET /webhooks/settings',
    ])
      expect(ids).toContain(id);
  });

  it('gives every operation a success answer and describes each status it declares', () => {
    const problems: string[] = [];
    for (const { id, op } of operations) {
      const statuses = Object.keys(op.responses ?? {});
      if (!statuses.some((s) => /^[23]\d\d$/.test(s))) problems.push(`${id}: no 2xx/3xx answer`);
      for (const status of undescribed(op)) problems.push(`${id} ${status}: no content described`);
    }
    expect(problems).toEqual([]);
  });

  it('answers JSON errors with the shared error body on every operation', () => {
    const problems: string[] = [];
    for (const { id, op } of operations) {
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        const schema = r.content?.['application/json']?.schema as Record<string, unknown> | undefined;
        if (!/^[45]\d\d$/.test(status) || !schema || SPEC_BODIES.has(`${id} ${status}`)) continue;
        const { description: _d, ...rest } = schema;
        const { description: _e, ...expected } = errorBody as Record<string, unknown>;
        if (JSON.stringify(rest) !== JSON.stringify(expected)) problems.push(`${id} ${status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names every operation with a unique PascalCase operationId', () => {
    const missing = operations.filter(({ op }) => !op.operationId).map(({ id }) => id);
    expect(missing).toEqual([]);
    const badlyFormed = operations
      .filter(({ op }) => !/^[A-Z][A-Za-z0-9]*$/.test(op.operationId ?? ''))
      .map(({ id, op }) => `${id}: ${op.operationId}`);
    expect(badlyFormed).toEqual([]);
    const seen = new Map<string, string[]>();
    for (const { id, op } of operations)
      seen.set(op.operationId!, [...(seen.get(op.operationId!) ?? []), id]);
    const duplicates = [...seen].filter(([, ids]) => ids.length > 1).map(([name, ids]) => `${name}: ${ids}`);
    expect(duplicates).toEqual([]);
  });

  it("uses the spec's operation names for the print submission API", () => {
    const byId = new Map(operations.map(({ id, op }) => [id, op.operationId]));
    expect(byId.get('GET /sfapi/GetConfiguration/')).toBe('GetConfiguration');
    expect(byId.get('GET /sfapi/GetPrinter/')).toBe('GetPrinter');
    expect(byId.get('GET /sfapi/GetPrinterProperties/')).toBe('GetPrinterProperties');
    expect(byId.get('GET /sfapi/PrepareUpload/')).toBe('PrepareUpload');
    expect(byId.get('POST /sfapi/Print/')).toBe('Print');
    expect(byId.get('GET /sfapi/Status/')).toBe('Status');
    expect(byId.get('PUT /storage/uploads/{fileId}')).toBe('UploadFile');
  });

  it('declares 401 and 403 on every operation behind a bearer token', () => {
    const problems = operations
      .filter(({ op }) => op.security?.some((s) => 'bearer' in s))
      .filter(({ op }) => !op.responses?.['401'] || !op.responses?.['403'])
      .map(({ id }) => id);
    expect(problems).toEqual([]);
  });
});
