/**
 * The switchboard's printer rules (`printer_state: offline | jammed`): while one is in force,
 * the printer's new jobs are not offered to its connector; their Status stays "not yet received"
 * with the WAITING flag and the reason (`printer jammed (fault rule f1)`), as a real stuck
 * printer's jobs look to an app. When the rule ends (removed, or its duration passed on the
 * emulator's clock), the waiting jobs are offered and print. Jobs the connector already has are
 * left alone.
 */
import type { JobService } from '../../jobs/job-service.js';
import type { TestClock } from '../clock/test-clock.js';
import type { FaultSwitchboard } from './fault-switchboard.js';

/** What the printer rules steer: which printers get offers. */
export interface PrinterFaultContext {
  jobs: JobService;
}

/** Installs the gate on the job service and re-offers jobs when a printer's rule ends. */
export function installPrinterFaults(
  board: FaultSwitchboard,
  clock: TestClock,
  context: PrinterFaultContext,
): () => void {
  const gate = (printerId: string): string | undefined => {
    const rule = board.printerState(printerId);
    if (rule?.action.kind !== 'printer_state') return undefined;
    return `printer ${rule.action.state} (fault rule ${rule.id})`;
  };
  context.jobs.setPrinterGate(gate);
  let gated = new Set<string>();
  const timers = new Map<string, NodeJS.Timeout>();
  const review = () => {
    const now = new Set<string>();
    for (const rule of board.list())
      if (rule.action.kind === 'printer_state' && rule.scope.printer)
        now.add(rule.scope.printer.toLowerCase());
    const opened = [...gated].filter((id) => !now.has(id));
    gated = now;
    for (const printerId of opened) context.jobs.reoffer(printerId);
  };
  board.onChange(() => {
    setImmediate(review);
    // A rule with a duration ends without anyone asking: look again at its end (real time).
    for (const rule of board.list()) {
      if (rule.action.kind !== 'printer_state' || rule.endsAt === undefined || timers.has(rule.id)) continue;
      const timer = setTimeout(() => {
        timers.delete(rule.id);
        review();
      }, rule.endsAt - clock.now());
      timer.unref();
      timers.set(rule.id, timer);
    }
  });
  clock.onAdvance(review);
  return () => {
    for (const timer of timers.values()) clearTimeout(timer);
  };
}
