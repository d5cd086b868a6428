/**
 * What an organization leaves behind when the partner API deletes it: once the delete commits,
 * its stored documents (uploaded files, uncommitted blocks, their records) and job documents
 * (registration sheets) leave the disk, and
 * its connectors' open WebSocket channels close with 4404 "organization deleted". Another
 * organization's files and channels stay.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_CLOSE } from '../../src/protocol/connector-channel.js';
import { type AccountsRig, clientToken, startAccountsRig } from './emulator-accounts-support.js';
import { DEMO, call, createPrinter, passwordToken, registration } from './emulator-harness.js';
import { OTHER_CLIENT } from './emulator-sfapi-harness.js';

let rig: AccountsRig;
beforeEach(async () => {
  rig = await startAccountsRig();
});
afterEach(async () => rig.close());

const files = () => rig.h.emulator.app.emulator.store.storedFiles;
/** Names under <dataDir>/files/ that belong to the file (its document `<id>.<random>.bin`, `<id>.blocks`). */
const onDisk = (fileid: string) =>
  readdirSync(join(rig.h.dataDir, 'files')).filter((name) => name.startsWith(`${fileid}.`));

/** A PrepareUpload of `token`'s organization, then an upload of `text` (or one uncommitted block). */
async function upload(token: string, text: string, asBlock = false): Promise<string> {
  const prepared = await call(rig.h.baseUrl, 'GET', '/sfapi/PrepareUpload/', token);
  expect(prepared.status).toBe(200);
  const { fileid, sasUri } = prepared.body as { fileid: string; sasUri: string };
  const url = asBlock ? `${sasUri}&comp=block&blockid=${Buffer.from('b1').toString('base64')}` : sasUri;
  const res = await request(url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: text });
  await res.body.dump();
  expect(res.statusCode).toBe(201);
  return fileid;
}

/** Registers a connector and opens its channel; resolves after `hello`. */
async function openChannel(token: string, serial: string) {
  const registered = await call(rig.h.baseUrl, 'POST', '/connector/v1/register', token, registration(serial));
  expect(registered.status).toBeLessThan(300);
  const socket = new WebSocket(`${rig.h.baseUrl.replace('http', 'ws')}/connector/v1/channel`, {
    headers: { authorization: `Bearer ${token}`, 'x-host-id': registered.body.id },
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'hello') resolve();
    }),
  );
  return { socket, closed, id: registered.body.id as string };
}

describe('DELETE /partner/v1/organizations/<id> leftovers', () => {
  it('deletes the stored documents and closes the connector channels after the commit', async () => {
    const demo = await passwordToken(rig.h.baseUrl, 'printing printing.connectors');
    const other = await clientToken(
      rig.h.baseUrl,
      OTHER_CLIENT,
      DEMO.otherAdmin,
      'printing printing.connectors',
    );
    const uploaded = await upload(demo, 'demo document');
    const partial = await upload(demo, 'one block', true);
    const kept = await upload(other, 'other document');
    expect([onDisk(uploaded).length, onDisk(partial), onDisk(kept).length]).toEqual([
      1,
      [`${partial}.blocks`],
      1,
    ]);
    expect(onDisk(uploaded)[0]).toMatch(new RegExp(`^${uploaded}\\.[0-9a-f-]{36}\\.bin$`));
    const demoChannel = await openChannel(demo, 'LEFT-DEMO');
    // A registration sheet: a job document outside the file store.
    const emulator = rig.h.emulator.app.emulator;
    const printerId = await createPrinter(rig.h.baseUrl, demo, demoChannel.id, 'Sheet printer');
    const printer = emulator.printers.list(rig.demoOrgId).find((p) => p.id === printerId)!;
    await emulator.pull.registration.issue(rig.demoOrgId, '0004711', printer, 'http://x/portal');
    const sheets = () => readdirSync(join(rig.h.dataDir, 'registration-sheets'));
    expect(sheets().filter((n) => n.startsWith(`${rig.demoOrgId}-`)).length).toBe(1);
    const otherChannel = await openChannel(other, 'LEFT-OTHER');

    const res = await call(
      rig.h.baseUrl,
      'DELETE',
      `/partner/v1/organizations/${rig.demoOrgId}`,
      rig.partner,
    );
    expect(res.status).toBe(204);

    expect(await demoChannel.closed).toEqual({
      code: CHANNEL_CLOSE.unknownConnector,
      reason: 'organization deleted',
    });
    expect([onDisk(uploaded), onDisk(partial)]).toEqual([[], []]);
    expect([files().find(uploaded), files().find(partial)]).toEqual([undefined, undefined]);
    expect(files().listByOrganization(rig.demoOrgId)).toEqual([]);
    expect(sheets()).toEqual([]);

    expect(onDisk(kept).length).toBe(1);
    expect(files().find(kept)?.organizationId).toBe(rig.otherOrgId);
    expect(otherChannel.socket.readyState).toBe(WebSocket.OPEN);
    otherChannel.socket.close();
    await otherChannel.closed;
  });

  it('a refused delete (409) leaves the files and the channels alone', async () => {
    const demo = await passwordToken(rig.h.baseUrl, 'printing printing.connectors');
    const uploaded = await upload(demo, 'demo document');
    const channel = await openChannel(demo, 'LEFT-409');
    const client = await call(rig.h.baseUrl, 'POST', '/v1/oauth-clients/public/', rig.admin, {
      name: 'Multi',
      redirect_urls: ['https://app.example/cb'],
      tenant_mode: 'multi',
    });
    expect(client.status).toBe(201);
    const res = await call(
      rig.h.baseUrl,
      'DELETE',
      `/partner/v1/organizations/${rig.demoOrgId}`,
      rig.partner,
    );
    expect(res.status).toBe(409);
    expect(onDisk(uploaded).length).toBe(1);
    expect(files().find(uploaded)?.state).toBe('ready');
    expect(channel.socket.readyState).toBe(WebSocket.OPEN);
    channel.socket.close();
    await channel.closed;
  });
});
