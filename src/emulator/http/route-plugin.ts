/**
 * The shape of an emulator route module: a Fastify plugin registered with `{ context }`, where
 * `context` is what that module uses and nothing more. Each module declares that narrow
 * interface itself (`PrinterRouteContext`, ...); the composition (emulator/app-routes.ts) hands
 * it exactly those members of the services it built. Nothing here knows a domain.
 */
import type { FastifyPluginAsync } from 'fastify';

/** Options a route module is registered with: its own narrow context. */
export interface RouteOptions<Context> {
  context: Context;
}

/** A route module over its narrow context: `await app.register(plugin, { context })`. */
export type RoutePlugin<Context> = FastifyPluginAsync<RouteOptions<Context>>;
