/**
 * Shared setup of the groups, printing users and assignments tests: an emulator with the demo
 * seed plus a client of the other organization, tokens of the demo admin, alice (a plain user)
 * and the other organization's admin, a connector of the demo organization, and helpers to add
 * printers and groups and to print. `close()` stops the emulator.
 */
import { request } from 'undici';
import {
  createPrinter,
  call,
  DEMO,
  type Harness,
  passwordToken,
  registration,
  startHarness,
  tokenRequest,
} from './emulator-harness.js';
import { OTHER_CLIENT, seedWithOtherClient } from './emulator-sfapi-harness.js';

/** The running emulator and the tokens of the tests. */
export interface GroupsRig {
  h: Harness;
  admin: string;
  alice: string;
  aliceId: string;
  adminId: string;
  other: string;
  connectorId: string;
  close(): Promise<void>;
}

async function otherAdminToken(baseUrl: string): Promise<string> {
  const basic = `Basic ${Buffer.from(`${OTHER_CLIENT.id}:${OTHER_CLIENT.secret}`).toString('base64')}`;
  const { email, password } = DEMO.otherAdmin;
  const form = { grant_type: 'password', username: email, password, scope: 'printing printing.connectors' };
  const res = await tokenRequest(baseUrl, form, basic);
  return res.body['access_token'] as string;
}

/** Starts the rig; the caller closes it. */
export async function startGroupsRig(): Promise<GroupsRig> {
  const h = await startHarness({ seed: seedWithOtherClient() });
  const admin = await passwordToken(h.baseUrl, 'printing printing.connectors');
  const alice = await passwordToken(h.baseUrl, 'printing', DEMO.user);
  const other = await otherAdminToken(h.baseUrl);
  const connector = await call(h.baseUrl, 'POST', '/connector/v1/register', admin, registration('GRP-1'));
  const users = h.emulator.app.emulator.store.users;
  return {
    h,
    admin,
    alice,
    other,
    aliceId: users.findByEmail(DEMO.user.email)!.id,
    adminId: users.findByEmail(DEMO.admin.email)!.id,
    connectorId: connector.body.id,
    close: () => h.close(),
  };
}

/** Creates a printer of the rig's connector; its id. */
export function addPrinter(rig: GroupsRig, name: string): Promise<string> {
  return createPrinter(rig.h.baseUrl, rig.admin, rig.connectorId, name);
}

/** Creates a group as the demo admin; its id. */
export async function addGroup(rig: GroupsRig, name: string): Promise<string> {
  const res = await call(rig.h.baseUrl, 'POST', '/printing/v1/groups/', rig.admin, { name });
  if (res.status !== 201) throw new Error(`group ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** An assignment change body naming `groupIds`. */
export function assignmentBody(...groupIds: string[]) {
  return { assignment: [{ groups: groupIds.map((id) => ({ group_id: id })) }] };
}

/** Uploads a small PDF as `token` and asks Print on `printerId`; the Print answer. */
export async function printAs(rig: GroupsRig, token: string, printerId: string) {
  const prepared = await call(rig.h.baseUrl, 'GET', '/sfapi/PrepareUpload/', token);
  const put = await request(prepared.body.sasUri, {
    method: 'PUT',
    headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/octet-stream' },
    body: '%PDF-1.4 group test',
  });
  await put.body.text();
  const body = { printerid: printerId, fileid: prepared.body.fileid, type: 'pdf', alias: 'doc.pdf' };
  return call(rig.h.baseUrl, 'POST', '/sfapi/Print/', token, body);
}
