/**
 * The agent's control API and metrics over a view of its parts: the view is read when asked, so
 * /status follows start-up as the parts appear. A control port that cannot be bound is logged,
 * never fatal: printing matters more than status; the outcome is noted in the data directory's
 * lock file, where `status` and `doctor` find it.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../lib/errors.js';
import { packageVersion } from '../lib/package-version.js';
import type { AgentContext, Running } from './agent-parts.js';
import type { ControlNote } from '../store/data-dir-lock.js';
import { AgentControl } from './control/agent-control.js';

/** The control API of an agent whose parts `parts()` returns (at the time of each question). */
export function agentControl(ctx: AgentContext, parts: () => Partial<Running>): AgentControl {
  const { config, logger, redactor } = ctx.deps;
  return new AgentControl(
    {
      config: config.control,
      cloudUrl: config.cloud.url,
      dataDir: resolve(ctx.deps.dataDir),
      channel: config.cloud.channel,
      version: packageVersion(),
      clock: ctx.clock,
      logger: logger.child({ part: 'control' }),
      scrub: (text) => (redactor ? redactor.scrubString(text) : text),
    },
    {
      connectorId: () => parts().connectorId,
      channelConnected: () => parts().feed?.connected ?? false,
      printers: () => [...(parts().printers?.values() ?? [])],
      unfinishedJobs: () => parts().ledger?.unfinished() ?? [],
      documentWaitReason: (jobId) => parts().loop?.documentWaitReason(jobId),
      jobsWaitingForDocument: () => parts().loop?.jobsWaitingForDocument() ?? 0,
      outbox: () => parts().outbox?.stats() ?? { depth: 0, oldestCreatedAt: undefined },
      stations: () => parts().stations?.status() ?? [],
      tokenExpiresAt: () => parts().tokens?.current()?.access_expires_at,
      instance: () => parts().lock?.token,
    },
  );
}

/**
 * Starts the control API; a failure is logged and shown as a control error, never thrown.
 * Returns the outcome (nothing when the API is disabled).
 */
export async function startControl(
  ctx: AgentContext,
  control: AgentControl,
): Promise<ControlNote | undefined> {
  try {
    const url = await control.start();
    return url === undefined ? undefined : { url };
  } catch (error) {
    const { bind, port } = ctx.deps.config.control;
    const message = `control API not started on ${bind}:${port}: ${errorMessage(error)}`;
    ctx.deps.logger.error({ bind, port }, message);
    control.error('control', message);
    return { error: message };
  }
}
