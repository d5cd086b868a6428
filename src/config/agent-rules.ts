/**
 * Rules of agent.yaml that span fields, checked once the schema (agent-schema.ts) passed. This
 * module holds no schema, so loading a file does not load the schema builder.
 */
import type { AgentConfig } from './agent-schema.js';
import { copyJobsIssues } from './copy-jobs-rules.js';
import type { SchemaIssue } from './schema-validator.js';

/** Rules across fields of a schema-valid agent config (copy-job sources and their settings). */
export function agentRuleIssues(config: AgentConfig): SchemaIssue[] {
  return config.release_stations.flatMap((station, i) =>
    station.copy_jobs
      ? copyJobsIssues(station.copy_jobs, config.copy_events !== undefined).map((issue) => ({
          path: ['release_stations', i, 'copy_jobs', ...issue.path],
          rule: issue.rule,
          // A missing field is pointed at through its parent; a listed source at its value.
          anchor: typeof issue.path.at(-1) === 'number' ? ('value' as const) : ('parent-key' as const),
        }))
      : [],
  );
}
