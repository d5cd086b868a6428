/**
 * `printrelay doctor` with a cloud that does not answer: over plain http it used to exit 0 with
 * only "clock: skip (ECONNREFUSED)" hinting at it. Now the `cloud` check fails, says what to fix,
 * and the command exits 1; a cloud that answers passes the same check.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/commands/doctor.js';
import { DEMO } from '../../src/config/load-config.js';
import { freePort } from '../support/peers.js';
import { runCli } from './cli-process.js';

describe('doctor and a cloud that does not answer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-cloud-'));
  const data = join(dir, 'data');
  let answering: Server;
  let answeringUrl: string;

  function config(name: string, url: string): string {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      `version: 1\ncloud:\n  url: ${url}\n  client_id: ${DEMO.client.id}\n  client_secret: ${DEMO.client.secret}\nprinters: []\n`,
    );
    return file;
  }

  beforeAll(async () => {
    mkdirSync(data, { mode: 0o700 });
    answering = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
    answeringUrl = `http://127.0.0.1:${(answering.address() as { port: number }).port}`;
  });

  afterAll(() => {
    answering?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the cloud check of an unreachable http:// cloud, with the fix, and exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const file = config('unreachable', url);
    const results = await runDoctor({ config: file, dataDir: data });
    const cloud = results.find((r) => r.name === 'cloud');
    expect(cloud).toMatchObject({
      status: 'fail',
      detail: `${url} does not answer (ECONNREFUSED): the agent can neither fetch jobs nor report them`,
    });
    expect(cloud?.fix).toMatch(/^start the cloud service, or correct cloud\.url/);

    const { code, stdout } = await runCli(['doctor', '--config', file, '--data-dir', data]);
    expect(stdout).toContain(`FAIL  cloud`);
    expect(code).toBe(1);
  });

  it('passes the cloud check of a cloud that answers', async () => {
    const results = await runDoctor({ config: config('answering', answeringUrl), dataDir: data });
    expect(results.find((r) => r.name === 'cloud')).toMatchObject({
      status: 'ok',
      detail: `${answeringUrl} accepts connections`,
    });
  });
});
