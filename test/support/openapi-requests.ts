/**
 * The request check of the test harness: every request a test sends through the harness's
 * `call()` and `tokenRequest()` is compared with what /openapi.json documents for its operation
 * (path and query parameters, content type, body), so the document's request side cannot drift
 * from what the tests exercise.
 *
 * The emulator is lenient on purpose (docs/print-api.md "Lenient input"): it accepts many
 * requests the document calls wrong. So a request off the document only fails the check when it
 * succeeded (answer below 400) and the test did not say it sends off-contract input
 * (`offContract`); a test that says so must really send such input. A rejected off-contract
 * request is what tests of validation do, and passes.
 */
import { type Operation, operationFor, validatorOf } from './openapi-responses.js';

/** A request as the harness sent it. */
export interface SentRequest {
  method: string;
  /** Path with query string. */
  path: string;
  contentType?: string;
  /** The body as sent: parsed JSON, or the fields of a form. */
  body?: unknown;
}

/** Statistics for the coverage test: how many requests were compared with the document. */
export const requestCheckStats = { checked: 0, offContract: 0 };

/** Throws when the request broke the document yet succeeded, or was marked off-contract but was not. */
export async function checkRequestAgainstOpenApi(
  baseUrl: string,
  sent: SentRequest,
  status: number,
  options: { offContract?: boolean } = {},
): Promise<void> {
  const url = new URL(sent.path, 'http://x');
  if (url.pathname === '/openapi.json') return;
  const found = await operationFor(baseUrl, sent.method, url.pathname);
  if (found === 'no-document' || found === undefined) return;
  requestCheckStats.checked += 1;
  const problems = requestProblems(found.operation, found.template, url, sent);
  const label = `${sent.method} ${url.pathname} ${status}`;
  if (options.offContract) {
    requestCheckStats.offContract += 1;
    if (problems.length === 0)
      throw new Error(`${label}: marked offContract, but the request matches /openapi.json`);
    return;
  }
  if (problems.length > 0 && status < 400)
    throw new Error(
      `${label}: the request does not match /openapi.json (${found.operation.operationId}) yet succeeded:\n  ` +
        `${problems.join('\n  ')}\n(fix the test or the document; pass offContract when the test means it)`,
    );
}

/** Every way the request departs from the operation's documented request. */
export function requestProblems(
  operation: Operation,
  template: string,
  url: URL,
  sent: SentRequest,
): string[] {
  return [
    ...parameterProblems(operation, 'path', pathValues(template, url.pathname)),
    ...parameterProblems(operation, 'query', queryValues(url)),
    ...bodyProblems(operation, sent),
  ];
}

function pathValues(template: string, pathname: string): Map<string, string> {
  const names = template.split('/');
  const values = pathname.replace(/\/+$/, '').split('/');
  const found = new Map<string, string>();
  names.forEach((name, i) => {
    const param = /^\{(.+)\}$/.exec(name);
    if (param && values[i] !== undefined) found.set(param[1]!, decodeURIComponent(values[i]!));
  });
  return found;
}

function queryValues(url: URL): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of url.searchParams) found.set(key, value);
  return found;
}

function parameterProblems(
  operation: Operation,
  where: 'path' | 'query',
  values: Map<string, string>,
): string[] {
  const declared = (operation.parameters ?? []).filter((p) => p.in === where);
  const problems: string[] = [];
  for (const param of declared) {
    const value = values.get(param.name);
    if (value === undefined) {
      if (param.required) problems.push(`${where} parameter ${param.name}: is required`);
      continue;
    }
    if (!param.schema) continue;
    const validate = validatorOf(param.schema);
    if (!validate(asSchemaValue(value, param.schema)))
      problems.push(`${where} parameter ${param.name}=${value}: ${validatorErrors(validate.errors)}`);
  }
  if (where === 'query') {
    const names = new Set(declared.map((p) => p.name));
    for (const name of values.keys())
      if (!names.has(name)) problems.push(`query parameter ${name}: not documented`);
  }
  return problems;
}

/** A query or path value as the type its schema names (they travel as text). */
function asSchemaValue(value: string, schema: object): unknown {
  const type = (schema as { type?: string }).type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function bodyProblems(operation: Operation, sent: SentRequest): string[] {
  const content = operation.requestBody?.content;
  // The generator marks every documented body required; a missing one is for the route to refuse.
  if (sent.body === undefined) return [];
  if (!content) return ['body: the operation documents no request body'];
  const type = (sent.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const media = content[type] ?? content['*/*'];
  if (!media) return [`content-type ${type || '(none)'}: documented are ${Object.keys(content).join(', ')}`];
  if (!media.schema) return [];
  const validate = validatorOf(media.schema);
  return validate(sent.body) ? [] : [`body: ${validatorErrors(validate.errors)}`];
}

function validatorErrors(errors: ReturnType<typeof validatorOf>['errors']): string {
  return (errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params['additionalProperty']})` : ''}`,
    )
    .join('; ');
}
