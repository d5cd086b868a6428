import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { caFileChange } from '../../../src/agent/cloud-access.js';
import { parseAgentConfig } from '../../../src/config/load-config.js';

const PEM = (n: number) => `-----BEGIN CERTIFICATE-----\nCA${n}\n-----END CERTIFICATE-----\n`;

describe('caFileChange (what a reload reports of cloud.ca_file)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ca-change-'));
    file = join(dir, 'ca.pem');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (caFile?: string) =>
    parseAgentConfig(
      `cloud:\n  url: https://127.0.0.1:8443\n  client_id: demo-app\n${caFile ? `  ca_file: ${caFile}\n` : ''}`,
      'agent.yaml',
      { env: {} },
    );

  it('reports nothing while the file holds the CA in use, or when no file is set', () => {
    writeFileSync(file, PEM(1));
    expect(caFileChange(config(file), PEM(1))).toBeUndefined();
    expect(caFileChange(config(), undefined)).toBeUndefined();
  });

  it('reports another CA in the same file as needing a restart', () => {
    writeFileSync(file, PEM(2));
    expect(caFileChange(config(file), PEM(1))).toBe('cloud.ca_file contents');
  });

  it('reports a file that can no longer be read, saying why', () => {
    writeFileSync(file, 'not a certificate');
    expect(caFileChange(config(file), PEM(1))).toBe(
      `cloud.ca_file contents (cloud.ca_file: ${file} holds no PEM certificate (BEGIN CERTIFICATE))`,
    );
    rmSync(file);
    expect(caFileChange(config(file), PEM(1))).toBe(
      `cloud.ca_file contents (cloud.ca_file: cannot read ${file} (ENOENT))`,
    );
  });
});
