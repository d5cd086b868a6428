/**
 * GET /TPFM/?Cmd=<Command>: the pull-printing release protocol (spec D). Per call: the command
 * (unknown: code 2), the required headers X-Lang-ID and X-FMP-User-Agent (missing: code 11
 * naming the header), authentication by the command's rule (HTTP 401 with a Basic challenge
 * where it is missing or wrong, code 3 for a user without pull printing), then the command.
 * Success answers X-FMP-Return: 0; a TpfmFailure its code with the localized base64 X-FMP-ErrText;
 * any other error code 1 with X-FMP-OSError / X-FMP-OSErrText. PrintJob streams (tpfm-print-job.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequestsError } from '../../../lib/errors.js';
import { TPFM_COMMANDS, TPFM_HEADERS, type TpfmCommand } from '../../../protocol/tpfm-codes.js';
import type { BaseUrlPolicy } from '../../http/base-url.js';
import * as commands from './tpfm-commands.js';
import type { TpfmServices } from '../pull-services.js';
import type { TpfmCall, TpfmResult } from './tpfm-commands.js';
import { preparePrint, streamPrint } from './tpfm-print-job.js';
import {
  canonicalQuery,
  osFailure,
  resolveCommand,
  sendChallenge,
  sendFailure,
  TpfmFailure,
} from './tpfm-wire.js';
import { pullRequests, pullSchemas } from '../pull-schemas.js';
import { operation } from '../../http/schemas.js';

/** Options of the /TPFM/ plugin. */
export interface TpfmRoutesOptions {
  /** The public base URL of the links /TPFM/ answers hold (PrepareUpload). */
  baseUrl: BaseUrlPolicy;
  services: TpfmServices;
}

type Handler = (s: TpfmServices, call: TpfmCall) => TpfmResult | Promise<TpfmResult>;

const HANDLERS: Record<Exclude<TpfmCommand, 'PrintJob'>, Handler> = {
  GetVersion: (s) => commands.getVersion(s),
  GetCapabilities: commands.getCapabilities,
  GetJobList: commands.getJobList,
  DeleteJob: commands.deleteJob,
  CancelPrintJob: commands.cancelPrintJob,
  SetJobProperties: commands.setJobProperties,
  CreateLocalJob: commands.createLocalJob,
  UpdateLocalJob: commands.updateLocalJob,
  PrepareUpload: commands.prepareUpload,
};

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() === '' ? undefined : first;
}

/** Registers GET /TPFM/. */
export async function tpfmRoutes(app: FastifyInstance, options: TpfmRoutesOptions): Promise<void> {
  const { baseUrl, services } = options;
  app.get(
    '/TPFM/',
    { schema: operation('RunTpfmCommand', pullSchemas.tpfm, pullRequests.tpfm) },
    async (request, reply) => {
      const query = canonicalQuery(request.query);
      const langId = header(request, TPFM_HEADERS.langId) ?? 'en';
      try {
        return await handle(request, reply, { query, langId, base: baseUrl.forRequest(request) }, services);
      } catch (error) {
        // Throttled device checks answer 429 with Retry-After (http/http-errors.ts), not an X-FMP code.
        if (error instanceof TooManyRequestsError) throw error;
        const failure = error instanceof TpfmFailure ? error : osFailure(error);
        if (failure.returnCode === 1) request.log.error({ err: error }, 'tpfm command failed');
        return sendFailure(reply, failure, langId);
      }
    },
  );
}

async function handle(
  request: FastifyRequest,
  reply: FastifyReply,
  req: { query: Record<string, string | undefined>; langId: string; base: string },
  s: TpfmServices,
) {
  const command = resolveCommand(req.query['Cmd']);
  if (!command) throw new TpfmFailure(2, `Cmd "${req.query['Cmd'] ?? ''}" is not a command of this server`);
  for (const name of [TPFM_HEADERS.langId, TPFM_HEADERS.userAgent]) {
    if (!header(request, name)) throw new TpfmFailure(11, `the request header ${name} is required`);
  }
  const call: TpfmCall = { command, query: req.query, langId: req.langId, baseUrl: req.base };
  const idempotencyKey = header(request, 'idempotency-key')?.trim();
  if (idempotencyKey) call.idempotencyKey = idempotencyKey.slice(0, 200);
  const rule = TPFM_COMMANDS[command].auth;
  if (rule !== 'none') {
    const auth = await s.auth.authenticate(
      request.headers.authorization,
      req.query['Printer'],
      request.ip,
      request.raw.socket,
    );
    if (auth.kind === 'refused') return sendChallenge(reply);
    if (auth.kind === 'device')
      Object.assign(call, { device: auth.device, userName: auth.userName, user: auth.user });
    if (rule === 'user' && (auth.kind === 'none' || !call.user)) return sendChallenge(reply);
    if (rule === 'user' && !call.user!.pullPrintingEnabled) {
      throw new TpfmFailure(3, 'pull printing is not enabled for this user');
    }
  }
  if (command === 'PrintJob') return streamPrint(reply, s, call, preparePrint(s, call));
  const result = await HANDLERS[command](s, call);
  return reply
    .code(200)
    .headers({ [TPFM_HEADERS.return]: '0', ...result.headers })
    .type('text/plain; charset=utf-8')
    .send(result.body);
}
