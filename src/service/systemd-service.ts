/**
 * The agent as a systemd service: the Debian package installs the unit
 * (packaging/systemd/printrelay-agent.service), so the service commands are systemctl's.
 */
import type { ServiceAction, ServicePlan } from './service-plan.js';

/** The unit the package installs. */
export const SYSTEMD_UNIT = 'printrelay-agent.service';

/** The steps of one service action under systemd. Pure. */
export function systemdPlan(action: ServiceAction): ServicePlan {
  const systemctl = (...args: string[]) => ({ kind: 'run' as const, command: 'systemctl', args });
  const steps = {
    install: [systemctl('enable', '--now', SYSTEMD_UNIT)],
    uninstall: [systemctl('disable', '--now', SYSTEMD_UNIT)],
    start: [systemctl('start', SYSTEMD_UNIT)],
    stop: [systemctl('stop', SYSTEMD_UNIT)],
    status: [{ ...systemctl('status', '--no-pager', SYSTEMD_UNIT), mayFail: true }],
  }[action];
  return { action, steps };
}
