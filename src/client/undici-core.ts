/**
 * The parts of undici the cloud clients use (Pool, Agent and the request API of every
 * dispatcher), loaded without undici's package entry. That entry loads all of undici: fetch,
 * WebSocket, EventSource, the cache stores, the mock agents, every interceptor and proxy agent,
 * and its cookie module reads the global `Headers`, which makes node load its own bundled copy of
 * undici as well. Loading these four modules instead keeps about 3 MB of V8 heap and 6.6 MB of
 * RSS out of every agent (docs/performance.md). The entry attaches the request API to
 * `Dispatcher.prototype` (request, stream, pipeline, connect, upgrade); this module does the same,
 * with the same functions, so either may load first. test/integration/agent-modules.test.ts
 * checks that a plain agent loads no other undici file than these and what they require.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher') as typeof Undici.Dispatcher;
const requestApi = require('undici/lib/api') as Record<string, unknown>;
Object.assign(Dispatcher.prototype, requestApi);

/** undici's Pool: connections to one origin (see undici's documentation). */
export const Pool = require('undici/lib/dispatcher/pool') as typeof Undici.Pool;
export type Pool = Undici.Pool;

/** undici's Agent: pools per origin (see undici's documentation). */
export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
export type Agent = Undici.Agent;
