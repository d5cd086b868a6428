/**
 * The switchboard's API: POST /_emulator/faults (one rule, or an array of rules added all or
 * none), GET /_emulator/faults (the rules in force), DELETE /_emulator/faults/<id> and
 * DELETE /_emulator/faults (all). A rule's wire form is its input plus `id`, `hits`, `remaining`
 * (uses left), `ends` (on the emulator's clock) and `created`. Who may: sandbox-access.ts; an
 * admin's rules apply to their organization only.
 */
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError, ValidationError, ValidationErrors } from '../../../lib/errors.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import { sandboxReader } from '../sandbox-access.js';
import { checkFaultRule, type FaultAction, fieldName, type FaultRuleDraft } from './fault-rule.js';
import type { FaultRule, FaultSwitchboard } from './fault-switchboard.js';

const FaultRuleSchema = T.Object(
  {
    id: T.String({ description: 'f1, f2, ... in creation order' }),
    hits: T.Integer({ description: 'how often it applied' }),
    created: T.String({ format: 'date-time' }),
    remaining: T.Optional(T.Integer({ description: 'uses left (absent: no limit)' })),
    ends: T.Optional(T.String({ format: 'date-time', description: "end on the emulator's clock" })),
  },
  { additionalProperties: true, description: 'the rule as given, plus its state' },
);

/**
 * A rule as POST takes it, for the document: types only, no limits, so that the switchboard's
 * own check (fault-rule.ts) answers every bad value by name and rule, all at once.
 */
const FaultRuleInput = T.Object(
  {
    operation: T.Optional(T.String({ description: 'an operationId of /openapi.json' })),
    printer: T.Optional(T.String()),
    user: T.Optional(T.String({ description: "a user's id or e-mail" })),
    client: T.Optional(T.String({ description: 'an OAuth client_id' })),
    connector: T.Optional(T.String({ description: 'drop_connector only' })),
    endpoint: T.Optional(T.String({ description: 'webhook_status only' })),
    times: T.Optional(T.Integer()),
    duration_s: T.Optional(T.Integer()),
    respond: T.Optional(
      T.Object({}, { additionalProperties: true, description: '{status, headers?, body?}' }),
    ),
    latency_ms: T.Optional(T.Integer()),
    cut: T.Optional(T.Boolean()),
    slow_chunks_ms: T.Optional(T.Integer()),
    end_job: T.Optional(
      T.Object({}, { additionalProperties: true, description: '{error_code} or {pages_printed}' }),
    ),
    printer_state: T.Optional(T.String({ description: 'offline or jammed' })),
    drop_connector: T.Optional(T.Boolean()),
    webhook_status: T.Optional(T.Integer()),
  },
  { additionalProperties: true, description: 'one action; docs/emulator.md lists the kinds' },
);

const common = { tags: ['emulator'], security: [{}, { bearer: [] }] as Record<string, string[]>[] };

/** The wire form of a rule. */
export function faultResource(rule: FaultRule): Record<string, unknown> {
  const acting = actionWire(rule.action);
  return {
    id: rule.id,
    ...rule.scope,
    ...acting,
    ...(rule.remaining === undefined ? {} : { remaining: rule.remaining }),
    ...(rule.endsAt === undefined ? {} : { ends: new Date(rule.endsAt).toISOString() }),
    hits: rule.hits,
    created: new Date(rule.createdAt).toISOString(),
    ...(rule.organizationId === undefined ? {} : { organization_id: rule.organizationId }),
  };
}

/** The wire field of an action, as a rule is given. */
function actionWire(action: FaultAction): Record<string, unknown> {
  switch (action.kind) {
    case 'respond':
      return {
        respond: {
          status: action.status,
          ...(Object.keys(action.headers).length > 0 ? { headers: action.headers } : {}),
          ...(action.body === undefined ? {} : { body: action.body }),
        },
      };
    case 'latency':
      return { latency_ms: action.ms };
    case 'cut':
      return { cut: true };
    case 'slow_chunks':
      return { slow_chunks_ms: action.ms };
    case 'printer_state':
      return { printer_state: action.state };
    case 'drop_connector':
      return { drop_connector: true };
    case 'webhook_status':
      return { webhook_status: action.status };
    case 'end_job':
      return {
        end_job:
          action.errorCode === undefined
            ? { pages_printed: action.pagesPrinted }
            : { error_code: action.errorCode },
      };
  }
}

/** Every draft of a body (a rule or an array of rules), or ValidationErrors naming each bad field. */
export function draftsOf(body: unknown): FaultRuleDraft[] {
  const items = Array.isArray(body) ? body : [body];
  const drafts: FaultRuleDraft[] = [];
  const errors: ValidationError[] = [];
  items.forEach((item, index) => {
    const { draft, issues } = checkFaultRule(item);
    const prefix = Array.isArray(body) ? [index] : [];
    for (const issue of issues)
      errors.push(new ValidationError(fieldName([...prefix, ...issue.path]), issue.rule));
    if (draft) drafts.push(draft);
  });
  if (errors.length > 0) throw new ValidationErrors(errors);
  return drafts;
}

/** Registers the switchboard's routes. */
export function registerFaultRoutes(app: FastifyInstance, board: FaultSwitchboard): void {
  app.post(
    '/_emulator/faults',
    {
      schema: {
        ...common,
        operationId: 'AddEmulatorFaults',
        description: 'Adds a fault rule (or an array of them); docs/emulator.md lists the kinds.',
        body: T.Union([FaultRuleInput, T.Array(FaultRuleInput)]),
        response: { 201: T.Array(FaultRuleSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const reader = await sandboxReader(request);
      const drafts = draftsOf(request.body);
      const added = drafts.map((d) => board.add(d, reader.organizationId));
      request.log.info({ faults: added.map((r) => r.id) }, 'fault rules added');
      return reply.code(201).send(added.map(faultResource));
    },
  );
  app.get(
    '/_emulator/faults',
    {
      schema: {
        ...common,
        operationId: 'ListEmulatorFaults',
        response: { 200: T.Array(FaultRuleSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => board.list((await sandboxReader(request)).organizationId).map(faultResource),
  );
  app.delete(
    '/_emulator/faults/:id',
    {
      schema: {
        ...common,
        operationId: 'RemoveEmulatorFault',
        params: T.Object({ id: T.String() }),
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!board.remove(id, (await sandboxReader(request)).organizationId))
        throw new NotFoundError(`fault rule ${id}`);
      return reply.code(204).send();
    },
  );
  app.delete(
    '/_emulator/faults',
    {
      schema: {
        ...common,
        operationId: 'ClearEmulatorFaults',
        response: { 200: T.Object({ removed: T.Integer() }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ removed: board.clear((await sandboxReader(request)).organizationId) }),
  );
}
