/**
 * The rules of a `copy_jobs` section that span fields (a listed source needs its settings,
 * SNMPv3 needs a user), each naming the field. Checked once the schema (copy-jobs-schema.ts)
 * passed; this module holds no schema, so loading a file does not load the schema builder.
 */
import type { CopyJobsConfig } from './copy-jobs-schema.js';

/** A rule broken across fields: the path (from the station entry) and the rule. */
export interface CopyConfigIssue {
  path: (string | number)[];
  rule: string;
}

/**
 * The cross-field rules of one `copy_jobs` section; paths are relative to it. `endpoint` tells
 * whether the agent has the top-level `copy_events` section the http source needs.
 */
export function copyJobsIssues(config: CopyJobsConfig, endpoint: boolean): CopyConfigIssue[] {
  const issues: CopyConfigIssue[] = [];
  config.sources.forEach((source, i) => {
    if (source === 'http' && !endpoint)
      issues.push({ path: ['sources', i], rule: 'http needs the top-level copy_events section' });
    if (source === 'snmp' && !config.snmp)
      issues.push({ path: ['sources', i], rule: 'snmp needs the snmp section' });
    if (source === 'ipp' && !config.ipp_uri) issues.push({ path: ['sources', i], rule: 'ipp needs ipp_uri' });
  });
  const snmp = config.snmp;
  if (snmp?.version === '3') {
    if (!snmp.user) issues.push({ path: ['snmp', 'user'], rule: 'is required for SNMP version 3' });
    if (snmp.security_level !== 'noAuthNoPriv' && !snmp.auth_key)
      issues.push({
        path: ['snmp', 'auth_key'],
        rule: `is required for security_level ${snmp.security_level}`,
      });
    if (snmp.security_level === 'authPriv' && !snmp.priv_key)
      issues.push({ path: ['snmp', 'priv_key'], rule: 'is required for security_level authPriv' });
  }
  return issues;
}
