/**
 * The demo's answer to a name clash: the emulator already holds a printer named "Demo Printer"
 * that another connector owns (the demo's agent state, <data-dir>/agent, was removed while the
 * emulator's data was kept). The agent never takes over a printer it does not own, so the demo
 * refuses with what it found and how to fix it — unless it was started with --replace-printer,
 * which deletes that printer so the agent registers its own.
 */
import { DEMO } from '../config/demo-seed.js';
import type { EmulatorStore } from '../emulator/emulator-store.js';
import type { PrinterService } from '../emulator/printers/printer-service.js';
import { CliError } from './cli-runtime.js';

/** What the name-clash check reads and changes in the emulator the demo started. */
export interface DemoEmulatorParts {
  store: Pick<EmulatorStore, 'organizations' | 'printers' | 'connectors'>;
  printers: Pick<PrinterService, 'remove'>;
}

/** The printer that holds the demo printer's name for another connector. */
export interface DemoNameClash {
  printerId: string;
  connectorId: string;
  connectorName: string;
}

/** The clashing printer, when "Demo Printer" belongs to a connector other than `ownConnectorId`. */
export function findDemoNameClash(
  emulator: DemoEmulatorParts,
  ownConnectorId: string | undefined,
): DemoNameClash | undefined {
  const { store } = emulator;
  const org = store.organizations.findByName(DEMO.organization);
  const printer = org ? store.printers.findByName(org.id, DEMO.printer.name) : undefined;
  if (!org || !printer || printer.connectorId === ownConnectorId) return undefined;
  const connector = store.connectors.findById(printer.connectorId);
  return {
    printerId: printer.id,
    connectorId: printer.connectorId,
    connectorName: connector?.readableName ?? 'unknown',
  };
}

/** Deletes the clashing printer (--replace-printer). */
export function removeClashingPrinter(emulator: DemoEmulatorParts, clash: DemoNameClash): void {
  const org = emulator.store.organizations.findByName(DEMO.organization);
  if (org) emulator.printers.remove(org.id, clash.printerId);
}

/** The error the demo exits with; `restart` is the command line that fixes it. */
export function nameClashError(clash: DemoNameClash, dataDir: string, restart: string): CliError {
  return new CliError(
    `the emulator already has a printer named "${DEMO.printer.name}" (cloud id ${clash.printerId}) ` +
      `that belongs to another connector ("${clash.connectorName}", id ${clash.connectorId}), so this ` +
      "demo's agent cannot register its own: a printer is never taken over. This happens when " +
      `${dataDir}/agent was removed but the emulator's data was kept. Fix: start the demo with ` +
      `--replace-printer, which deletes that printer (jobs waiting for it are lost) and registers ` +
      `this one:\n  ${restart}\nor start it with a fresh --data-dir.`,
  );
}
