/**
 * GET /_emulator/clock (the emulator's time and how far it was moved) and POST /_emulator/clock
 * `{"advance_s": N}` (moves it N seconds forward). Who may: see sandbox-access.ts.
 */
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../http/schemas.js';
import { sandboxReader } from '../sandbox-access.js';
import { MAX_ADVANCE_S, type TestClock } from './test-clock.js';

const ClockState = T.Object(
  {
    now: T.String({ format: 'date-time', description: "the emulator's time" }),
    offset_s: T.Number({ description: 'seconds the clock has been moved forward in total' }),
  },
  { additionalProperties: false },
);

const common = {
  tags: ['emulator'],
  security: [{}, { bearer: [] }] as Record<string, string[]>[],
};

/** The wire form of the clock. */
export function clockState(clock: TestClock): { now: string; offset_s: number } {
  return { now: new Date(clock.now()).toISOString(), offset_s: clock.offsetMs() / 1000 };
}

/** Registers the clock's two routes. */
export function registerClockRoutes(app: FastifyInstance, clock: TestClock): void {
  app.get(
    '/_emulator/clock',
    {
      schema: {
        ...common,
        operationId: 'GetEmulatorClock',
        response: { 200: ClockState, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      await sandboxReader(request);
      return clockState(clock);
    },
  );
  app.post(
    '/_emulator/clock',
    {
      schema: {
        ...common,
        operationId: 'AdvanceEmulatorClock',
        description: "Moves the emulator's clock forward (never the agent's); it never goes back.",
        body: T.Object(
          { advance_s: T.Number({ minimum: 0, maximum: MAX_ADVANCE_S }) },
          { additionalProperties: false },
        ),
        response: { 200: ClockState, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      await sandboxReader(request);
      const { advance_s } = request.body as { advance_s: number };
      clock.advance(advance_s * 1000);
      request.log.info({ offsetS: clock.offsetMs() / 1000 }, 'test clock moved');
      return clockState(clock);
    },
  );
}
