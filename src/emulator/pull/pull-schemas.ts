/**
 * Route schemas of pull printing: /TPFM/ (plain-text answers with X-FMP-* headers; a device
 * challenge is a 401 in plain text; a throttled device gets the JSON error body with 429), the
 * release-station pairing and local jobs of the admin API, the card claim API and its HTML page.
 * Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { LOCAL_JOB_FIELDS } from '../../protocol/tpfm-local-job.js';
import {
  DateTime,
  type DocumentedRequest,
  Uuid,
  jsonBody,
  otherContent,
  pageOrError,
  queryOf,
  responses,
} from '../http/schemas.js';

const admin = { tags: ['pull printing'], security: [{ bearer: [] }] };

/** Schemas of the pull-printing routes. */
export const pullSchemas = {
  tpfm: {
    tags: ['TPFM'],
    description:
      'One command per request (Cmd=...). The outcome is in the X-FMP-Return header (0 success); ' +
      'the body is text/plain (INI-style lists, or the document for PrintJob).',
    security: [{ basic: [] }, {}] as Record<string, string[]>[],
    response: responses(
      {
        200: otherContent('text/plain', 'the command answer (X-FMP-Return: 0) or a failure code'),
        401: otherContent('text/plain', 'a device or user challenge (WWW-Authenticate: Basic)'),
      },
      429,
    ),
  },
  pairing: {
    ...admin,
    params: T.Object({ id: T.String() }),
    response: responses(
      {
        200: T.Object({ printer_id: Uuid, pull_printing: T.Literal(true) }, { additionalProperties: false }),
      },
      400,
      401,
      403,
      404,
    ),
  },
  localJobs: {
    ...admin,
    params: T.Object({ id: T.String() }),
    response: responses(
      {
        200: T.Object(
          {
            printer_id: Uuid,
            local_jobs: T.Array(
              T.Object(
                {
                  id: T.String(),
                  user_id: T.Union([T.String(), T.Null()]),
                  type: T.String(),
                  state: T.String(),
                  fields: T.Record(T.String(), T.Unknown()),
                  created_at: DateTime,
                  updated_at: DateTime,
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      },
      401,
      403,
      404,
    ),
  },
  cardClaim: {
    ...admin,
    response: responses(
      { 200: T.Object({ card_linked: T.Literal(true) }, { additionalProperties: false }) },
      400,
      401,
      403,
      404,
      409,
    ),
  },
  claimPage: {
    tags: ['pull printing'],
    response: {
      200: otherContent('text/html', 'the claim form, or the page saying the card is linked'),
      400: pageOrError('the form again with what is wrong'),
      401: otherContent('text/html', 'the form again: wrong e-mail or password'),
      404: otherContent('text/html', 'the form again: unknown or expired code'),
      409: otherContent('text/html', 'the form again: code used or card taken'),
      429: pageOrError('too many wrong passwords'),
    },
  },
};

const text = (description: string) => T.Optional(T.String({ description }));

/** Requests of the pull-printing routes (checked by the routes; http/schemas.ts DocumentedRequest). */
export const pullRequests = {
  tpfm: queryOf({
    Cmd: T.String({
      description:
        'GetVersion, GetCapabilities, GetJobList, DeleteJob, PrintJob, CancelPrintJob, SetJobProperties, ' +
        'CreateLocalJob, UpdateLocalJob or PrepareUpload; parameter names match in any letter case',
      examples: ['GetJobList'],
    }),
    Printer: text('printer name or id (GetCapabilities, GetJobList, PrintJob, CreateLocalJob)'),
    MaxEntries: text('GetJobList: most jobs listed'),
    ShowPutOnHoldJobs: text('GetJobList: 1 lists held jobs too'),
    Job: text('DeleteJob, PrintJob, SetJobProperties: the job file name'),
    Copies: text('PrintJob, local jobs: number of copies'),
    Delete: text('PrintJob: 0 or 1 (default 1)'),
    Progress: text('PrintJob: 0 or 1 (default 1)'),
    ProcId: text('CancelPrintJob: the X-FMP-ProcId of PrintJob'),
    PutOnHold: text('SetJobProperties: 1 holds, 0 releases'),
    ModifiedDate: text('SetJobProperties: seconds since 1970-01-01 UTC'),
    JobId: text('UpdateLocalJob: the X-FMP-JobId of CreateLocalJob'),
    Type: text('CreateLocalJob: Copy'),
    DocumentName: text('PrepareUpload: at most 255 characters, no extension'),
    FileExtension: text('PrepareUpload: no dot'),
    PageNumber: text('PrepareUpload: page of a one-file-per-page upload'),
    ...Object.fromEntries(
      LOCAL_JOB_FIELDS.filter((f) => f !== 'Copies').map((f) => [f, text(`local jobs: ${f}`)]),
    ),
  }),
  pairing: jsonBody(
    { code: T.String({ minLength: 4, maxLength: 128, description: 'the pull-printing password' }) },
    true,
  ),
  cardClaim: jsonBody(
    { code: T.String({ minLength: 4, maxLength: 16, description: 'the printed registration code' }) },
    true,
  ),
  claimForm: {
    bodies: {
      'application/x-www-form-urlencoded': T.Object(
        {
          email: T.String(),
          password: T.String(),
          code: T.String({ description: 'the printed registration code' }),
        },
        { additionalProperties: true },
      ),
    },
  },
} satisfies Record<string, DocumentedRequest>;
