/**
 * The documented requests of the OAuth authorization server (http/schemas.ts DocumentedRequest):
 * the token, pairing and revocation forms, the authorize query and the browser pages' forms.
 * The routes check them themselves (RFC 6749 errors; unknown fields ignored). Pure data.
 */
import { type TSchema, Type as T } from '@sinclair/typebox';
import type { DocumentedRequest } from '../http/schemas.js';

const FORM = 'application/x-www-form-urlencoded';
const s = (description: string) => T.Optional(T.String({ description }));

const TokenForm = T.Object(
  {
    grant_type: T.Union(
      ['authorization_code', 'refresh_token', 'pairing_code', 'password', 'client_credentials'].map((g) =>
        T.Literal(g),
      ),
      { description: 'the grant; the other fields it needs follow' },
    ),
    scope: s('space-separated scopes, e.g. printing'),
    code: s('authorization_code: the code of the redirect'),
    redirect_uri: s('authorization_code: the redirect URI of the authorize request'),
    code_verifier: s('authorization_code with PKCE: the verifier (S256)'),
    refresh_token: s('refresh_token: the single-use refresh token'),
    retry_key: s('refresh_token: repeats of the same key within a short window get the same answer'),
    pairing_code: s('pairing_code: the code of /oauth/pair'),
    username: s('password: the e-mail address of the user'),
    password: s('password: the user’s password'),
    client_id: s('client authentication when no Basic header is sent'),
    client_secret: s('client authentication when no Basic header is sent'),
  },
  {
    additionalProperties: true,
    examples: [
      {
        grant_type: 'authorization_code',
        code: 'x1y2',
        redirect_uri: 'http://localhost:8080/cb',
        code_verifier: 'v'.repeat(43),
        scope: 'printing',
      },
    ],
  },
);

const AuthorizeQuery = T.Object(
  {
    response_type: T.Optional(T.Literal('code')),
    client_id: T.String(),
    redirect_uri: T.Optional(
      T.String({ description: 'one of the client’s redirect URLs (required when it has several)' }),
    ),
    scope: s('space-separated scopes'),
    state: s('returned unchanged with the code'),
    code_challenge: s('PKCE challenge (required for public clients)'),
    code_challenge_method: T.Optional(T.Literal('S256')),
    nonce: s('echoed in the id_token'),
  },
  { additionalProperties: true },
);

const pageForm = (fields: Record<string, TSchema>) =>
  ({
    bodies: { [FORM]: T.Object({ csrf_token: T.String(), ...fields }, { additionalProperties: true }) },
  }) satisfies DocumentedRequest;

/** Requests of the OAuth routes. */
export const oauthRequests = {
  token: { bodies: { [FORM]: TokenForm } },
  pair: {
    bodies: {
      [FORM]: T.Object(
        {
          mode: T.Optional(T.Literal('device')),
          scope: s('space-separated scopes'),
          client_id: s('without Basic'),
          client_secret: s('without Basic'),
        },
        { additionalProperties: true },
      ),
    },
  },
  revoke: {
    bodies: {
      [FORM]: T.Object(
        {
          token: T.String({ description: 'the access or refresh token to revoke' }),
          token_type_hint: T.Optional(T.Union([T.Literal('access_token'), T.Literal('refresh_token')])),
          client_id: s('without Basic'),
          client_secret: s('without Basic'),
        },
        { additionalProperties: true },
      ),
    },
  },
  authorizePage: { querystring: AuthorizeQuery },
  consent: pageForm({
    decision: T.Optional(T.Union([T.Literal('approve'), T.Literal('deny')])),
    email: s('sign-in on the same form'),
    password: s('sign-in on the same form'),
    ...Object.fromEntries(
      Object.entries(AuthorizeQuery.properties).map(([k]) => [k, s('carried from the authorize query')]),
    ),
  }),
  pairingPage: { querystring: T.Object({ pairing_code: T.String() }, { additionalProperties: false }) },
  pairingDecision: pageForm({
    pairing_code: s('the code being confirmed'),
    decision: T.Optional(T.Union([T.Literal('approve'), T.Literal('deny')])),
    email: s('sign-in on the same form'),
    password: s('sign-in on the same form'),
  }),
  signInPage: {
    querystring: T.Object(
      { next: s('where to go after signing in (a path of this origin)') },
      { additionalProperties: false },
    ),
  },
  signIn: pageForm({
    email: s('e-mail address'),
    password: s('password'),
    next: s('where to go after signing in'),
  }),
  none: { querystring: T.Object({}, { additionalProperties: false }) },
} satisfies Record<string, DocumentedRequest>;
