/**
 * How the agent reaches the cloud: the CA it trusts besides the system roots (cloud.ca_file), the
 * token grants of its OAuth client (refresh, and the password grant when configured) and the
 * retry backoff of its `jobs` settings. Pure functions of the configuration, save the file read.
 */
import { readCaFile } from '../client/cloud-trust.js';
import { fetchPasswordToken, type OAuthClientSettings, refreshToken } from '../client/oauth-client.js';
import { CONNECTOR_TOKEN_SCOPE } from '../client/pairing-client.js';
import type { TokenGrants } from '../client/token-store.js';
import type { AgentConfig } from '../config/agent-schema.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import { errorMessage } from '../lib/errors.js';

/** The pairing asks for the same scopes (client/pairing-client.ts). */
const TOKEN_SCOPE = CONNECTOR_TOKEN_SCOPE;

/** The PEM of cloud.ca_file; a PermanentError naming the field when unreadable. */
export function readCloudCa(config: AgentConfig): string | undefined {
  const file = config.cloud.ca_file;
  return file ? readCaFile(file, 'cloud.ca_file') : undefined;
}

/**
 * What a reload reports when `cloud.ca_file` (the same path) now holds another CA than the one
 * in use, or can no longer be read; undefined when it is unchanged or not set. A reload does not
 * apply a new CA: the connections trusting the old one are made at start.
 */
export function caFileChange(config: AgentConfig, inUse: string | undefined): string | undefined {
  if (!config.cloud.ca_file) return undefined;
  try {
    return readCloudCa(config) === inUse ? undefined : 'cloud.ca_file contents';
  } catch (error) {
    return `cloud.ca_file contents (${errorMessage(error)})`;
  }
}

/** The grants the token store renews the connector's tokens with. */
export function tokenGrants(config: AgentConfig, caPem: string | undefined): TokenGrants {
  const { cloud } = config;
  const settings: OAuthClientSettings = {
    authUrl: cloud.url,
    clientId: cloud.client_id,
    clientSecret: cloud.client_secret,
    timeoutMs: cloud.request_timeout_s * 1000,
    ...(caPem ? { ca: caPem } : {}),
  };
  const { username, password } = cloud;
  return {
    refresh: (token, retryKey) => refreshToken(settings, token, TOKEN_SCOPE, retryKey),
    password:
      username && password ? () => fetchPasswordToken(settings, username, password, TOKEN_SCOPE) : undefined,
  };
}

/** Exponential backoff with jitter between `jobs.retry_initial_ms` and `jobs.retry_max_ms`. */
export function retryBackoff(config: AgentConfig): BackoffPolicy {
  const { jobs } = config;
  return { initialMs: jobs.retry_initial_ms, maxMs: jobs.retry_max_ms, factor: 2, jitter: 0.5 };
}
