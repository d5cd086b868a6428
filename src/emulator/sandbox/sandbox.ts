/**
 * The sandbox: what a developer uses to watch and steer the emulator, never part of the emulated
 * service: the test clock (clock/), the fault switchboard (faults/) and the console (console/),
 * all under /_emulator/. This is the area's one public face: app.ts builds a Sandbox before the
 * services (they read its clock) and registers its routes and hooks before the service's routes.
 * A production-like start turns it off (`enabled: false`): the clock is the base clock and none
 * of /_emulator/clock, /_emulator/faults or the console exist.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { SandboxRecords } from './sandbox-records.js';
import { registerClockRoutes } from './clock/clock-routes.js';
import { TestClock } from './clock/test-clock.js';
import type { FaultRuleDraft } from './faults/fault-rule.js';
import { registerFaultRoutes } from './faults/fault-routes.js';
import { FaultSwitchboard } from './faults/fault-switchboard.js';
import { type HttpFaultContext, installHttpFaults } from './faults/http-fault-hooks.js';
import { type JobFaultContext, installJobFaults } from './faults/job-faults.js';
import { type ConnectorFaultContext, installConnectorFaults } from './faults/connector-faults.js';
import { type WebhookFaultContext, installWebhookFaults } from './faults/webhook-faults.js';
import { type PrinterFaultContext, installPrinterFaults } from './faults/printer-faults.js';
import { type ConsoleContext, registerConsoleRoutes } from './console/console-routes.js';

/** How the sandbox starts (EmulatorOptions.sandbox). */
export interface SandboxOptions {
  /** False turns the switchboard, the test clock and the console off (default true). */
  enabled?: boolean;
  /** Rules in force from the start (a `--faults` file), already checked. */
  faults?: readonly FaultRuleDraft[];
}

/** One emulator's sandbox; owns no resources that need closing. */
export interface Sandbox {
  /** The clock every time rule of the emulator reads (the test clock when enabled). */
  readonly clock: Clock;
  readonly enabled: boolean;
  /** Calls `listener` whenever the test clock moves (timers waiting for a time re-read it). */
  onClockAdvance(listener: () => void): void;
  /**
   * Registers the sandbox's routes and hooks; call before the service's routes. `records` are
   * what it reads of other domains, through their faces (sandbox-records.ts).
   */
  register(app: FastifyInstance, context: SandboxContext, records: SandboxRecords): Promise<void>;
}

/** The services the sandbox steers and reads: what its rules and its console each declare. */
export interface SandboxContext
  extends HttpFaultContext,
    JobFaultContext,
    ConnectorFaultContext,
    WebhookFaultContext,
    PrinterFaultContext,
    ConsoleContext {}

/** Builds the sandbox over the injected base clock. */
export function createSandbox(base: Clock, options: SandboxOptions = {}): Sandbox {
  if (options.enabled === false) {
    return { clock: base, enabled: false, onClockAdvance: () => {}, register: async () => {} };
  }
  const clock = new TestClock(base);
  const faults = new FaultSwitchboard(clock);
  for (const draft of options.faults ?? []) faults.add(draft);
  return {
    clock,
    enabled: true,
    onClockAdvance: (listener) => {
      clock.onAdvance(listener);
    },
    register: async (app, context, records) => {
      registerClockRoutes(app, clock);
      registerFaultRoutes(app, faults);
      installHttpFaults(app, faults, context, records);
      installJobFaults(faults, context, records);
      installConnectorFaults(faults, context);
      installWebhookFaults(faults, context, records);
      const stopPrinterFaults = installPrinterFaults(faults, clock, context);
      app.addHook('onClose', async () => stopPrinterFaults());
      registerConsoleRoutes(app, context, { clock, faults, records });
    },
  };
}
