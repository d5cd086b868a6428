/**
 * The response check of the test harness: every JSON response a test receives through the
 * harness's `call()` is validated against the emulator's own /openapi.json (JSON Schema 2020-12,
 * formats checked), so the document cannot drift from behaviour. A route or status without a
 * response schema in the document is not checked (docs/emulator.md lists the covered routes).
 * The document is fetched once per base URL and cached; a server without /openapi.json is not checked.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { request } from 'undici';
import { ErrorBodySchema } from '../../src/emulator/http/schemas.js';

/** One operation of the document, as the checks read it. */
export interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; schema?: object }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
type PathItem = Record<string, Operation>;
interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  item: PathItem;
}

/** The validator of both checks (JSON Schema 2020-12, formats checked). */
export const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const routesByBase = new Map<string, Promise<Route[]>>();
const validators = new WeakMap<object, ValidateFunction>();

/** Statistics for the coverage test: how many responses were validated. */
export const responseCheckStats = { validated: 0 };

/** Throws when `body` does not match the document's schema for this method, path and status. */
export async function checkResponseAgainstOpenApi(
  baseUrl: string,
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<void> {
  const pathname = new URL(path, 'http://x').pathname;
  if (body === undefined || pathname === '/openapi.json') return;
  const all = await routes(baseUrl);
  if (all.length === 0) return;
  const found = schemaFor(all, method, pathname, status);
  if (found === 'no-operation' && status !== 404)
    throw new Error(`${method} ${pathname} ${status}: no operation of /openapi.json serves this path`);
  const schema = found === 'no-operation' ? ErrorBodySchema : found;
  if (!schema)
    throw new Error(
      `${method} ${pathname} ${status}: /openapi.json has no JSON response schema for this status ` +
        `(declare it in the route's schema.response)\n${JSON.stringify(body).slice(0, 300)}`,
    );
  const validate = validatorOf(schema);
  responseCheckStats.validated += 1;
  if (!validate(body))
    throw new Error(
      `${method} ${pathname} ${status}: the response does not match /openapi.json: ${ajv.errorsText(validate.errors)}\n` +
        JSON.stringify(body).slice(0, 500),
    );
}

/** The JSON schema for this answer; undefined when the operation does not declare one. */
function schemaFor(
  all: Route[],
  method: string,
  pathname: string,
  status: number,
): object | undefined | 'no-operation' {
  const found = match(all, method, pathname);
  if (!found) return 'no-operation';
  return found.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
}

function match(all: Route[], method: string, pathname: string) {
  const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const matches = all.filter((r) => r.pattern.test(trimmed)).sort((a, b) => a.params - b.params);
  for (const route of matches) {
    const operation = route.item[method.toLowerCase()];
    if (operation) return { operation, template: route.template };
  }
  return undefined;
}

/**
 * The operation serving `method` `pathname` with its path template (`/v1/users/{id}`);
 * 'no-document' for a server without /openapi.json, undefined when no operation serves it.
 */
export async function operationFor(
  baseUrl: string,
  method: string,
  pathname: string,
): Promise<{ operation: Operation; template: string } | undefined | 'no-document'> {
  const all = await routes(baseUrl);
  if (all.length === 0) return 'no-document';
  return match(all, method, pathname);
}

/** A compiled validator of `schema`, cached by schema object. */
export function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

function routes(baseUrl: string): Promise<Route[]> {
  let loaded = routesByBase.get(baseUrl);
  if (!loaded) {
    loaded = fetchRoutes(baseUrl);
    routesByBase.set(baseUrl, loaded);
  }
  return loaded;
}

async function fetchRoutes(baseUrl: string): Promise<Route[]> {
  const res = await request(`${baseUrl}/openapi.json`);
  // A server that is not the emulator (no document) gets no checks.
  if (res.statusCode !== 200) {
    await res.body.dump();
    return [];
  }
  const doc = (await res.body.json()) as { paths: Record<string, PathItem> };
  return Object.entries(doc.paths).map(([template, item]) => {
    const trimmed = template.length > 1 ? template.replace(/\/+$/, '') : template;
    const source = trimmed.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return {
      template,
      pattern: new RegExp(`^${source}$`, 'i'),
      params: (template.match(/\{/g) ?? []).length,
      item,
    };
  });
}
