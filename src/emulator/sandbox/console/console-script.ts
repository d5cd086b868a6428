/**
 * The console's browser script (served as /_emulator/console.js; plain JavaScript, no build):
 * reads the live stream /_emulator/events (server-sent events over fetch, so an admin's token
 * can go in a header), renders each snapshot with textContent only (no markup from data), and
 * drives the clock, the fault rules and webhook retries through the sandbox's API. The token,
 * when given, stays in the tab's sessionStorage.
 */

/** The script's source. */
export const CONSOLE_SCRIPT = String.raw`'use strict';
const KEY = 'printrelay-console-token';
const $ = (id) => document.getElementById(id);
const headers = (json) => {
  const h = {};
  const token = sessionStorage.getItem(KEY);
  if (token) h.authorization = 'Bearer ' + token;
  if (json) h['content-type'] = 'application/json';
  return h;
};
const say = (text, bad) => { $('message').textContent = text; $('message').className = bad ? 'bad' : ''; };

async function call(method, path, body) {
  const res = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error((data && data.message) || res.status + ' ' + res.statusText);
  return data;
}

function cell(row, value) {
  const td = document.createElement('td');
  td.textContent = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  row.appendChild(td);
  return td;
}

function button(td, label, action) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => action().then(() => say(label + ': done'), (e) => say(label + ': ' + e.message, true)));
  td.appendChild(b);
}

/** One section: a heading and a table of rows (columns: [title, read(row)]). */
function section(id, title, rows, columns, extra) {
  const wrap = document.createElement('section');
  wrap.id = id;
  const h = document.createElement('h2');
  h.textContent = title + ' (' + rows.length + ')';
  wrap.appendChild(h);
  if (rows.length === 0) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = 'none';
    wrap.appendChild(p);
    return wrap;
  }
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const [name] of columns) { const th = document.createElement('th'); th.textContent = name; head.appendChild(th); }
  if (extra) head.appendChild(document.createElement('th'));
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    if (row.id) tr.dataset.id = row.id;
    for (const [name, read] of columns) cell(tr, read(row)).dataset.field = name;
    if (extra) { const td = document.createElement('td'); extra(td, row); tr.appendChild(td); }
  }
  wrap.appendChild(table);
  return wrap;
}

function render(s) {
  $('clock').textContent = 'emulator time ' + s.clock.now + (s.clock.offset_s ? ' (+' + s.clock.offset_s + ' s)' : '');
  const main = $('sections');
  main.replaceChildren(
    section('organizations', 'Organizations', s.organizations, [['name', (o) => o.name], ['id', (o) => o.id]]),
    section('printers', 'Printers', s.printers, [['name', (p) => p.name], ['status', (p) => p.status], ['organization', (p) => p.organization], ['formats', (p) => p.formats.join(', ')], ['model', (p) => p.model], ['capabilities', (p) => p.capabilities], ['id', (p) => p.id]]),
    section('connectors', 'Connectors', s.connectors, [['name', (c) => c.name], ['connected', (c) => (c.connected ? 'connected' : 'not connected')], ['version', (c) => c.version], ['organization', (c) => c.organization], ['id', (c) => c.id]]),
    section('jobs', 'Jobs', s.jobs, [['document', (j) => j.document], ['state', (j) => j.state], ['pages', (j) => j.pages_printed + '/' + j.pages_total], ['printer', (j) => j.printer], ['user', (j) => j.user], ['error', (j) => j.error_code], ['message', (j) => j.message], ['created', (j) => j.created]], (td, j) => {
      if (!j.document_available) return;
      const a = document.createElement('a');
      a.textContent = 'download';
      a.href = '/_emulator/jobs/' + encodeURIComponent(j.id) + '/document';
      a.addEventListener('click', (event) => { event.preventDefault(); download(j); });
      td.appendChild(a);
    }),
    section('held-jobs', 'Held jobs', s.held_jobs, [['user', (h) => h.user], ['document', (h) => h.document], ['on hold', (h) => (h.on_hold ? 'yes' : 'no')], ['created', (h) => h.created]]),
    section('local-jobs', 'Local (copy) jobs', s.local_jobs, [['printer', (j) => j.printer], ['type', (j) => j.type], ['state', (j) => j.state], ['fields', (j) => j.fields], ['updated', (j) => j.updated]]),
    section('webhooks', 'Webhook deliveries', s.webhooks.flatMap((e) => e.deliveries.map((d) => ({ ...d, endpoint: e }))), [['endpoint', (d) => d.endpoint.name + ' ' + d.endpoint.url], ['event', (d) => d.event_id], ['status', (d) => d.status], ['attempts', (d) => d.attempts], ['error', (d) => d.error], ['answer', (d) => d.response_status_code], ['next attempt', (d) => d.next_attempt]], (td, d) =>
      button(td, 'retry', () => call('POST', '/_emulator/webhooks/' + d.endpoint.id + '/events/' + d.event_id + '/retry'))),
    section('webhook-endpoints', 'Webhook endpoints', s.webhooks, [['name', (e) => e.name], ['url', (e) => e.url], ['disabled', (e) => (e.disabled ? 'yes' : 'no')]]),
    section('mail', 'Mail outbox', s.mail, [['to', (m) => m.to], ['subject', (m) => m.subject], ['created', (m) => m.created]]),
    section('oauth-clients', 'OAuth clients', s.oauth_clients, [['name', (c) => c.name], ['client_id', (c) => c.client_id], ['type', (c) => c.type], ['grant types', (c) => c.grant_types.join(', ')], ['organization', (c) => c.organization]]),
    section('sign-ins', 'Active sign-ins', s.sign_ins, [['user', (x) => x.user], ['client', (x) => x.client_id], ['since', (x) => x.since], ['expires', (x) => x.expires]]),
    section('faults', 'Fault rules', s.faults, [['id', (f) => f.id], ['rule', (f) => { const { id, hits, created, remaining, ends, ...rule } = f; return rule; }], ['hits', (f) => f.hits], ['uses left', (f) => f.remaining], ['ends', (f) => f.ends]], (td, f) =>
      button(td, 'remove', () => call('DELETE', '/_emulator/faults/' + f.id))),
  );
}

async function download(job) {
  try {
    const res = await fetch('/_emulator/jobs/' + encodeURIComponent(job.id) + '/document', { headers: headers(false) });
    if (!res.ok) throw new Error(res.status + ' ' + res.statusText);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = job.document;
    a.click();
    URL.revokeObjectURL(url);
  } catch (e) { say('download: ' + e.message, true); }
}

/** Follows the live stream; reconnects after a second when it ends. */
async function follow() {
  for (;;) {
    try {
      const res = await fetch('/_emulator/events', { headers: headers(false) });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.message || res.status + ' ' + res.statusText);
      }
      $('live').textContent = 'live';
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (data) render(JSON.parse(data));
        }
      }
      $('live').textContent = 'reconnecting...';
    } catch (e) {
      $('live').textContent = 'not connected: ' + e.message;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

$('token').value = sessionStorage.getItem(KEY) || '';
$('token-form').addEventListener('submit', (e) => { e.preventDefault(); sessionStorage.setItem(KEY, $('token').value.trim()); location.reload(); });
$('clock-form').addEventListener('submit', (e) => {
  e.preventDefault();
  call('POST', '/_emulator/clock', { advance_s: Number($('advance').value) }).then((c) => say('clock moved: offset ' + c.offset_s + ' s'), (err) => say('clock: ' + err.message, true));
});
$('fault-form').addEventListener('submit', (e) => {
  e.preventDefault();
  let rule;
  try { rule = JSON.parse($('fault').value); } catch (err) { say('fault rule: not JSON (' + err.message + ')', true); return; }
  call('POST', '/_emulator/faults', rule).then((added) => say('added ' + added.map((r) => r.id).join(', ')), (err) => say('fault rule: ' + err.message, true));
});
$('clear-faults').addEventListener('click', () => call('DELETE', '/_emulator/faults').then((r) => say('removed ' + r.removed + ' rule(s)'), (err) => say(err.message, true)));
follow();
`;
