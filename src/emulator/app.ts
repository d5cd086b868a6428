/**
 * The emulator: one Fastify 5 app serving the cloud's hosts on one origin (paths matched
 * case-insensitively, trailing slash optional), CORS with credentials for the origins of
 * registered redirect URLs and configured ones (http/cors-policy.ts), one error mapping,
 * its SQLite store seeded on first start, and every route plugin of routes/. `close()` stops
 * the server, closes the WebSockets and the database.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { systemClock } from '../lib/clock.js';
import type { RedirectUrlLister } from './clients/clients-face.js';
import type { EmulatorContext } from './context.js';
import { BaseUrlPolicy } from './http/base-url.js';
import { CorsPolicy, registerCors } from './http/cors-policy.js';
import { declareResponseShaping } from './http/response-shaping.js';
import { FileSender } from './http/file-sender.js';
import { OutboundAddressPolicy } from './http/outbound-address-policy.js';
import { installErrorHandlers } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { PathOnlyLogController } from './http/request-log.js';
import { registerRoutes } from './app-routes.js';
import { AccountUserService } from './accounts/account-user-service.js';
import { MembershipService } from './accounts/membership-service.js';
import { InvitationService } from './accounts/invitation-service.js';
import { MailOutbox } from './accounts/mail-outbox.js';
import { PartnerMemberService } from './partner/partner-member-service.js';
import { PartnerOrganizationService } from './partner/partner-organization-service.js';
import { AssignmentService } from './groups/assignment-service.js';
import { AuthorizationCodeService } from './oauth/authorization-codes.js';
import { startPrinterParts } from './printers/capability-service.js';
import { ConnectorHub } from './connectors/connector-hub.js';
import { readJobDocument } from './jobs/job-file.js';
import { ConnectorService } from './connectors/connector-service.js';
import { GroupService } from './groups/group-service.js';
import { JobService } from './jobs/job-service.js';
import { OAuthClientService } from './clients/oauth-client-service.js';
import { PairingService } from './oauth/pairing.js';
import { PrinterService } from './printers/printer-service.js';
import { TokenService } from './oauth/token-service.js';
import { openEmulatorStore } from './emulator-store.js';
import { ensurePrivateDatabaseFile, ensurePrivateDir, warnOnLooseModes } from './store/data-files.js';
import { applySeed } from './seed-loader.js';
import { FileStore } from './files/file-store.js';
import { UrlFetcher } from './files/url-fetcher.js';
import { SessionService } from './oauth/sessions.js';
import { startPullServices } from './pull/pull-services.js';
import { PrintService } from './sfapi/print-service.js';
import { type WebhookParts, startWebhookParts } from './webhooks/webhook-parts.js';
import { CredentialGuard } from './store/credential-guard.js';
import type { EmulatorOptions } from './emulator-options.js';
import { type Sandbox, createSandbox } from './sandbox/sandbox.js';

export type { EmulatorOptions } from './emulator-options.js';
import { SecretHasher } from './store/secret-hash.js';
import { UserSignIn } from './accounts/user-sign-in.js';

/** A built emulator; the creator calls close(). */
export interface Emulator {
  app: FastifyInstance;
  /** Starts listening (port 0: any free port); resolves to the base URL, e.g. http://127.0.0.1:41234. */
  listen(host: string, port: number): Promise<string>;
  /** Closes the server, its WebSockets and the database. */
  close(): Promise<void>;
}

/** Builds a ready emulator (routes registered, database migrated and seeded); the caller closes it. */
export async function createEmulator(options: EmulatorOptions): Promise<Emulator> {
  const { context, webhookParts, sandbox } = await createContext(options);
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the generic types differ only in the custom-level parameter.
    loggerInstance: options.logger.child({ part: 'emulator' }) as FastifyBaseLogger,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    logController: new PathOnlyLogController(),
    bodyLimit: 16 * 1024 * 1024,
    ...(options.tls ? { https: { key: options.tls.key, cert: options.tls.cert } } : {}),
  });
  // Response schemas document the answers (OpenAPI) and tests check them; they never rewrite an
  // answer, so a field a schema forgot is never silently dropped (fast-json-stringify would).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorate('emulator', context);
  app.decorate('bearer', { tokens: context.tokens, callers: context.callers });
  app.decorateRequest('auth', null as never);
  declareResponseShaping(app);
  installErrorHandlers(app);
  const clientRedirects: RedirectUrlLister = context.store.clients;
  await registerCors(app, new CorsPolicy(() => clientRedirects.liveRedirectUrls(), options.corsOrigins));
  await app.register(formbody);
  // Signs the sign-in pages' session cookie; a new secret per start (sessions do not survive restarts).
  await app.register(cookie, { secret: randomBytes(32).toString('base64url') });
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  await registerOpenApi(app);
  // The sandbox reads jobs, users and webhook endpoints through their faces (SandboxRecords).
  const { clock, logger, tokens, jobs, hub, webhooks, pull, mail, documents } = context;
  const sandboxContext = { clock, logger, tokens, jobs, hub, webhooks, pull, mail, documents };
  await sandbox.register(app, sandboxContext, context.store);
  await registerRoutes(app, context);
  // A keep-alive connection whose last response was still finishing when close() began is not
  // idle at that moment, so the server's one sweep of idle connections misses it and close()
  // would wait out the keep-alive timeout (72 s). Once closing, each response that finishes
  // closes the connections that are idle by then.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });
  // Release long polls and close channels first, so in-flight requests finish before the store closes.
  app.addHook('preClose', async () => {
    context.hub.stop();
    context.pull.prints.stop();
  });
  app.addHook('onClose', async () => {
    context.files.stop();
    await context.fetcher.stop();
  });
  // Stop webhook delivery before the store closes; attempts cut off stay queued for the next start.
  app.addHook('preClose', async () => webhookParts.stop());
  app.addHook('onClose', async () => context.store.close());
  await app.ready();
  return {
    app,
    listen: (host, port) => listen(app, context.baseUrl, options.tls ? 'https' : 'http', host, port),
    close: () => app.close(),
  };
}

async function createContext(
  options: EmulatorOptions,
): Promise<{ context: EmulatorContext; webhookParts: WebhookParts; sandbox: Sandbox }> {
  const sandbox = createSandbox(options.clock ?? systemClock, options.sandbox);
  const clock = sandbox.clock;
  const logger = options.logger.child({ part: 'emulator' });
  await ensurePrivateDir(options.dataDir);
  await ensurePrivateDatabaseFile(options.db);
  const store = openEmulatorStore(options.db);
  try {
    const credentials = new CredentialGuard(new SecretHasher(clock), clock, options.credentialLimits);
    if (await applySeed(store, options.seed, clock.now(), credentials.hasher))
      logger.info('seeded an empty database');
    const signIn = new UserSignIn(store, credentials);
    const issuer = options.publicUrl ?? 'printrelay-emulator';
    const keyDir = join(options.dataDir, 'keys');
    const tokens = new TokenService(store, clock, logger, issuer, credentials, signIn, keyDir);
    await tokens.start();
    await warnOnLooseModes(secretPaths(options, keyDir, tokens.keyFiles()), logger);
    const hub = new ConnectorHub(clock, logger, options.channelHeartbeatS, options.connectorChannel);
    hub.setDocumentSource((jobId) => readJobDocument(store.jobs.findById(jobId)));
    const connectors = new ConnectorService(store, clock, logger);
    const printerParts = await startPrinterParts(store, store.connectors, clock, logger, options.driverDir);
    const printers = new PrinterService(store, store.connectors, clock, logger, printerParts);
    const outbound = new OutboundAddressPolicy(options.outboundAllow);
    const webhookParts = await startWebhookParts(
      store,
      { printers: store.printers, connectors: store.connectors, users: store.users },
      clock,
      logger,
      options.dataDir,
      {
        ...options.webhooks,
        policy: outbound,
      },
    );
    // Deliveries that came due when the test clock moved go out now, not at the next poll.
    sandbox.onClockAdvance(() => webhookParts.dispatcher.kick());
    const jobs = new JobService(store, clock, logger, hub, webhookParts.publisher);
    const groups = new GroupService(
      store,
      { users: store.users, printingSettings: store.printingUsers },
      clock,
      logger,
    );
    const assignments = new AssignmentService(store, store.printerAccess, printers, groups, clock, logger);
    const files = new FileStore({
      dataDir: options.dataDir,
      records: store.storedFiles,
      clock,
      logger,
      ...(options.maxDocumentBytes === undefined ? {} : { maxBytes: options.maxDocumentBytes }),
      ...(options.uploadLimits === undefined ? {} : { uploadLimits: options.uploadLimits }),
    });
    await files.start();
    const fetcher = new UrlFetcher({ files, logger: logger.child({ part: 'sfapi' }), policy: outbound });
    const pull = await startPullServices({
      store,
      people: { users: store.users, organizations: store.organizations },
      printerRecords: {
        connectors: store.connectors,
        printers: store.printers,
        pullPasswords: store.printerSettings,
      },
      jobs,
      files,
      clock,
      logger,
      dataDir: options.dataDir,
      credentials,
      ...(options.registrationSheetIntervalMs === undefined
        ? {}
        : { registrationSheetIntervalMs: options.registrationSheetIntervalMs }),
      localJobOutcomes: webhookParts.publisher,
    });
    const memberships = new MembershipService(store, clock, logger, store.refreshTokens);
    const mail = new MailOutbox(store.db, clock);
    const invitations = new InvitationService(store, memberships, mail, clock, logger, signIn);
    const oauthClients = new OAuthClientService(
      store,
      clock,
      logger,
      credentials.hasher,
      store.refreshTokens,
    );
    const partnerOrganizations = new PartnerOrganizationService(
      store,
      memberships,
      invitations,
      oauthClients,
      { files, hub, dataDir: options.dataDir },
      clock,
      logger,
    );
    const context: EmulatorContext = {
      store,
      callers: { users: store.users, clients: store.clients },
      logger,
      clock,
      dataDir: options.dataDir,
      baseUrl: new BaseUrlPolicy({ publicUrl: options.publicUrl, trustProxy: options.trustProxy }),
      credentials,
      signIn,
      tokens,
      printers,
      jobs,
      connectors,
      hub,
      ...printerParts,
      pairings: new PairingService(store, tokens, clock, logger),
      authorizationCodes: new AuthorizationCodeService(store, tokens, clock, logger),
      oauthClients,
      groups,
      assignments,
      files,
      documents: new FileSender(options.downloads === undefined ? {} : { limits: options.downloads }),
      fetcher,
      printing: new PrintService(files, fetcher, { printers, assignments, jobs }),
      pull,
      sessions: new SessionService(store, clock),
      webhooks: webhookParts.service,
      memberships,
      accountUsers: new AccountUserService(store, memberships, logger),
      invitations,
      mail,
      partnerOrganizations,
      partnerMembers: new PartnerMemberService(store, memberships, partnerOrganizations),
    };
    return { context, webhookParts, sandbox };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** Everything on disk that holds secrets, for the start-up mode check. */
function secretPaths(options: EmulatorOptions, keyDir: string, keyFiles: string[]): string[] {
  const db = options.db === ':memory:' ? [] : [options.db, `${options.db}-wal`, `${options.db}-shm`];
  const files = join(options.dataDir, 'files');
  return [options.dataDir, ...db, keyDir, ...keyFiles, files, join(files, '.signing-key')];
}

async function listen(
  app: FastifyInstance,
  baseUrl: BaseUrlPolicy,
  scheme: 'http' | 'https',
  host: string,
  port: number,
): Promise<string> {
  await app.listen({ host, port });
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the emulator is not listening on TCP');
  return baseUrl.listening(scheme, address);
}
