/**
 * The outbound address rule end to end: a fileurl or webhook URL naming a loopback, private or
 * link-local address is refused with a 400 naming the field; a redirect to a refused address is
 * refused at connect time (the address connected to is the one checked); a name is judged after
 * DNS resolution; webhook deliveries and the endpoint test go through the same rule.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { OutboundAddressPolicy } from '../../src/emulator/http/outbound-address-policy.js';
import { WebhookSender } from '../../src/emulator/webhooks/webhook-sender.js';
import { call as sfapiCall, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';
import { call, type Harness, passwordToken, startHarness } from './emulator-harness.js';

const RULE =
  'the emulator connects only to public addresses unless the allow-list (--allow-outbound) names the range';

/** A document server on `host` that counts its requests; `/hop` redirects to `redirect`. */
async function documentServer(host: string, redirect?: string) {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/hop' && redirect) res.writeHead(302, { location: redirect }).end();
    else res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 test');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { origin, seen, close };
}

async function printFollowing412(h: SfapiHarness, body: Record<string, unknown>) {
  let answer = await sfapiCall(h, '/sfapi/Print/', { method: 'POST', body });
  while (answer.status === 412) {
    const repeat = { fileid: answer.body.fileid, type: body.type, printerid: body.printerid };
    answer = await sfapiCall(h, '/sfapi/Print/', { method: 'POST', body: repeat });
  }
  return answer;
}

describe('fileurl and the outbound address rule', () => {
  let strict: SfapiHarness;
  let lab: SfapiHarness;
  let target: Awaited<ReturnType<typeof documentServer>>;
  let hop: Awaited<ReturnType<typeof documentServer>>;

  beforeAll(async () => {
    target = await documentServer('127.0.0.2');
    hop = await documentServer('127.0.0.1', `${target.origin}/secret.pdf`);
    strict = await startSfapiHarness(undefined, undefined, []);
    lab = await startSfapiHarness(undefined, undefined, ['127.0.0.1/32']);
  });
  afterAll(async () => {
    await strict?.close();
    await lab?.close();
    await hop?.close();
    await target?.close();
  });

  it('refuses a loopback fileurl by default with 400 naming fileurl and the rule; nothing is fetched', async () => {
    const answer = await sfapiCall(strict, '/sfapi/Print/', {
      method: 'POST',
      body: { fileurl: `${hop.origin}/a.pdf`, type: 'pdf', printerid: strict.printerId },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.field).toBe('fileurl');
    expect(answer.body.rule).toBe(`127.0.0.1 is a loopback address; ${RULE}`);
    expect(hop.seen).toEqual([]);
  });

  it('refuses the link-local metadata address and the IPv4-mapped, NAT64 and 6to4 forms of refused ones', async () => {
    for (const [url, rule] of [
      ['http://169.254.169.254/latest/meta-data/', `169.254.169.254 is a link-local address; ${RULE}`],
      ['http://[::ffff:127.0.0.1]:9/a.pdf', `::ffff:7f00:1 is a loopback address; ${RULE}`],
      [
        'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
        `64:ff9b::a9fe:a9fe is the NAT64 form of 169.254.169.254, a link-local address; ${RULE}`,
      ],
      [
        'http://[2002:7f00:1::]:9/a.pdf',
        `2002:7f00:1:: is the 6to4 form of 127.0.0.1, a loopback address; ${RULE}`,
      ],
    ] as const) {
      const answer = await sfapiCall(strict, '/sfapi/Print/', {
        method: 'POST',
        body: { fileurl: url, type: 'pdf', printerid: strict.printerId },
      });
      expect([answer.status, answer.body.field, answer.body.rule]).toEqual([400, 'fileurl', rule]);
    }
  });

  it('fetches from an allowed lab address, but refuses a redirect from there to a refused one', async () => {
    const direct = await printFollowing412(lab, {
      fileurl: `${hop.origin}/a.pdf`,
      type: 'pdf',
      printerid: lab.printerId,
    });
    expect(direct.status).toBe(200);
    const redirected = await printFollowing412(lab, {
      fileurl: `${hop.origin}/hop`,
      type: 'pdf',
      printerid: lab.printerId,
    });
    expect(redirected.status).toBe(400);
    expect(redirected.body.field).toBe('fileurl');
    expect(redirected.body.rule).toBe(`fetching fileurl failed: 127.0.0.2 is a loopback address; ${RULE}`);
    expect(target.seen).toEqual([]);
  });

  it('judges a name by the addresses it resolves to, before connecting', async () => {
    const policy = new OutboundAddressPolicy();
    const agent = new Agent({ connect: policy.connector() });
    const port = new URL(hop.origin).port;
    const before = hop.seen.length;
    try {
      await expect(request(`http://localhost:${port}/a.pdf`, { dispatcher: agent })).rejects.toThrow(
        /^localhost: (127\.0\.0\.1|::1) is a loopback address; /,
      );
    } finally {
      await agent.close();
    }
    expect(hop.seen.length).toBe(before);
  });
});

describe('webhook URLs and the outbound address rule', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness({ outboundAllow: [] });
    token = await passwordToken(h.baseUrl, 'webhooks');
  });
  afterAll(async () => h?.close());

  const refusedBody = (rule: string) => ({
    error: 'invalid_request',
    message: `url: ${rule}`,
    field: 'url',
    rule,
    errors: [{ error: 'invalid_request', message: `url: ${rule}`, field: 'url', rule }],
  });

  it('refuses creating an endpoint on a loopback address, naming url and the rule', async () => {
    const res = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: 'inside',
      url: 'https://127.0.0.1:9/hook',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusedBody(`127.0.0.1 is a loopback address; ${RULE}`));
  });

  it('refuses endpoints on the NAT64 and 6to4 forms of private addresses', async () => {
    for (const [url, rule] of [
      [
        'https://[64:ff9b::c0a8:101]/hook',
        `64:ff9b::c0a8:101 is the NAT64 form of 192.168.1.1, a private address`,
      ],
      ['https://[2002:a00:1::1]/hook', `2002:a00:1::1 is the 6to4 form of 10.0.0.1, a private address`],
    ] as const) {
      const res = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, { name: 'inside', url });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(refusedBody(`${rule}; ${RULE}`));
    }
  });

  it('refuses moving an endpoint to a link-local address', async () => {
    const created = await call(h.baseUrl, 'POST', '/webhooks/endpoints', token, {
      name: 'outside',
      url: 'https://hooks.example.com/print',
    });
    expect(created.status).toBe(201);
    const id = created.body.endpoint_id as string;
    const res = await call(h.baseUrl, 'PATCH', `/webhooks/endpoints/${id}`, token, {
      url: 'https://[fe80::1]/hook',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusedBody(`fe80::1 is a link-local address; ${RULE}`));
  });

  it('refuses the endpoint test to a private IPv6 address', async () => {
    const res = await call(h.baseUrl, 'PUT', '/webhooks/endpoints/test', token, {
      url: 'https://[fd00::5]/hook',
      topic: 'printjob_succeeded',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusedBody(`fd00::5 is a unique-local (private) address; ${RULE}`));
  });

  it('a delivery to a refused address fails without connecting, saying why', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, policy: new OutboundAddressPolicy() });
    try {
      const literal = await sender.send({ url: 'https://10.20.30.40/hook' }, '{}');
      expect(literal.status).toBe('failed');
      expect(literal.detail).toBe(`10.20.30.40 is a private address; ${RULE}`);
      const named = await sender.send({ url: 'https://localhost:9/hook' }, '{}');
      expect(named.status).toBe('failed');
      expect(named.detail).toMatch(/^localhost: (127\.0\.0\.1|::1) is a loopback address; /);
    } finally {
      await sender.close();
    }
  });
});
