/**
 * TypeBox route schemas of the webhook interface: request bodies, parameters, query strings and
 * success responses, as Fastify validates them and as an OpenAPI document generated from the
 * routes shows them. Bodies stay open (no additionalProperties: false) because Fastify's Ajv
 * would silently drop unknown fields; the service's rules reject them by name instead. Responses
 * are closed: the test harness fails on a field the document does not name.
 */
import { Type as T } from '@sinclair/typebox';
import { errorResponses } from '../http/schemas.js';
import { WEBHOOK_TOPICS } from './webhook-endpoint-repo.js';

/** Error answers of every webhook route (the shared error body). */
export const WebhookErrors = errorResponses(400, 401, 403, 404, 409);

const Topic = T.Union(
  WEBHOOK_TOPICS.map((t) => T.Literal(t)),
  { description: 'printjob_succeeded or printjob_failed' },
);
const Scheme = T.Union([T.Literal('basic'), T.Null()], { description: 'basic, or null for none' });
const Uuid = T.String({ description: 'UUID' });
const DateTime = T.String({ format: 'date-time' });

const endpointFields = {
  name: T.String({ minLength: 1, maxLength: 255, description: 'Readable name.' }),
  url: T.String({ description: 'Must begin with https://.' }),
  topics: T.Array(Topic, { minItems: 1, description: 'Default: every topic.' }),
  disabled: T.Boolean({ description: 'true stops delivery; default false.' }),
  authentication_scheme: Scheme,
  basic_username: T.String({ maxLength: 255 }),
  basic_password: T.String({ maxLength: 255, description: 'Stored sealed; never returned.' }),
};

/** POST /webhooks/endpoints. */
export const EndpointCreateBody = T.Object({
  ...endpointFields,
  topics: T.Optional(endpointFields.topics),
  disabled: T.Optional(endpointFields.disabled),
  authentication_scheme: T.Optional(Scheme),
  basic_username: T.Optional(endpointFields.basic_username),
  basic_password: T.Optional(endpointFields.basic_password),
});

/** PATCH /webhooks/endpoints/<id> (JSON Merge Patch: null removes). */
export const EndpointPatchBody = T.Object(
  {
    name: T.Optional(endpointFields.name),
    url: T.Optional(endpointFields.url),
    topics: T.Optional(endpointFields.topics),
    disabled: T.Optional(endpointFields.disabled),
    authentication_scheme: T.Optional(Scheme),
    basic_username: T.Optional(T.Union([endpointFields.basic_username, T.Null()])),
    basic_password: T.Optional(T.Union([endpointFields.basic_password, T.Null()])),
  },
  { description: 'application/merge-patch+json; authentication_scheme null removes authentication.' },
);

/** An endpoint in responses. */
export const Endpoint = T.Object(
  {
    endpoint_id: Uuid,
    name: T.String(),
    url: T.String(),
    topics: T.Array(Topic),
    disabled: T.Boolean(),
    authentication_scheme: Scheme,
    basic_username: T.String(),
    basic_password_set: T.Boolean({
      description: 'Whether a Basic password is stored (it is never returned).',
    }),
  },
  { additionalProperties: false },
);

/** The paginated list envelope around `item`. */
export function Paginated<S extends ReturnType<typeof T.Object>>(item: S) {
  return T.Object(
    {
      count: T.Integer(),
      next: T.Union([T.String(), T.Null()]),
      previous: T.Union([T.String(), T.Null()]),
      results: T.Array(item),
    },
    { additionalProperties: false },
  );
}

/** limit and offset. */
export const PageQuery = T.Object({
  limit: T.Optional(T.Integer({ minimum: 1, maximum: 1000, default: 20 })),
  offset: T.Optional(T.Integer({ minimum: 0, default: 0 })),
});

/** The failed event list's query. */
export const EventListQuery = T.Object({
  ...PageQuery.properties,
  order: T.Optional(
    T.String({
      description: 'Comma-separated from created, -created, event_id, -event_id; default created.',
    }),
  ),
});

export const EndpointParams = T.Object({ id: Uuid });
export const EventParams = T.Object({ id: Uuid, eventId: Uuid });

/** PUT /webhooks/endpoints/test. */
export const EndpointTestBody = T.Object({
  url: endpointFields.url,
  topic: Topic,
  authentication_scheme: T.Optional(Scheme),
  basic_username: T.Optional(endpointFields.basic_username),
  basic_password: T.Optional(endpointFields.basic_password),
});

const TranscriptPart = T.Object(
  { start_line: T.String(), headers: T.String(), body: T.String() },
  { additionalProperties: false },
);
const DeliveryError = T.Union([T.Literal('timeout'), T.Literal('response_status_code')]);

/** The test result: request, response, status, and on failure error (and response_status_code). */
export const EndpointTestResult = T.Object(
  {
    request: TranscriptPart,
    response: TranscriptPart,
    status: T.Union([T.Literal('succeeded'), T.Literal('failed')]),
    error: T.Optional(DeliveryError),
    response_status_code: T.Optional(T.Integer()),
    detail: T.Optional(T.String({ description: 'Why no answer came, when none did.' })),
  },
  { additionalProperties: false },
);

/** A failed event record. */
export const FailedEvent = T.Object(
  {
    created: DateTime,
    event_id: Uuid,
    topic: Topic,
    endpoint: T.Object(
      {
        status: T.Union([T.Literal('pending'), T.Literal('failed')]),
        error: DeliveryError,
        last_attempt: DateTime,
        response_status_code: T.Optional(T.Integer()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The single retry result. */
export const RetryResultSchema = T.Object(
  {
    status: T.Union([T.Literal('succeeded'), T.Literal('failed')]),
    error: T.Optional(DeliveryError),
    response_status_code: T.Optional(T.Integer()),
  },
  { additionalProperties: false },
);

/** A retry-all run. */
export const RetryAllRun = T.Object({ created: DateTime }, { additionalProperties: false });

/** The data protection settings (response), and their merge patch (request; null resets to false). */
export const Settings = T.Object(
  {
    file_name_obfuscated: T.Boolean(),
    user_email_disabled: T.Boolean(),
    user_name_disabled: T.Boolean(),
  },
  { additionalProperties: false },
);
export const SettingsPatchBody = T.Object({
  file_name_obfuscated: T.Optional(T.Union([T.Boolean(), T.Null()])),
  user_email_disabled: T.Optional(T.Union([T.Boolean(), T.Null()])),
  user_name_disabled: T.Optional(T.Union([T.Boolean(), T.Null()])),
});

/** Answer of the 204 routes. */
export const NoContent = T.Null({ description: 'No content' });
