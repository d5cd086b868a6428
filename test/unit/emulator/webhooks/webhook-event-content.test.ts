import { describe, expect, it } from 'vitest';
import {
  buildEvent,
  type FinishedJobFacts,
  sampleEvent,
  sheetsOf,
} from '../../../../src/emulator/webhooks/webhook-event-content.js';

const job: FinishedJobFacts = {
  jobId: 'job-1',
  createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
  outcome: 'succeeded',
  ticket: { copies: 2, duplex: 'short-edge', color: false, paper: { id: 1, name: 'Letter' } },
  fileName: 'payroll.xlsx',
  pagesPrinted: 6,
  printer: { id: 'printer-1', name: 'Floor 2' },
  connector: { id: 'connector-1', name: 'Hub' },
  user: { id: 'user-1', email: 'ann@example.test', name: 'Ann Example' },
};
const off = { file_name_obfuscated: false, user_email_disabled: false, user_name_disabled: false };
let digit = 0;
const digits = () => digit++ % 10;

describe('buildEvent', () => {
  it('carries every field of a network job, the required-when ones included', () => {
    expect(buildEvent('event-1', Date.UTC(2026, 0, 2, 3, 5), job, off, digits)).toEqual({
      created: '2026-01-02T03:05:00.000Z',
      event_id: 'event-1',
      topic: 'printjob_succeeded',
      content: {
        printjob: {
          printjob_id: 'job-1',
          created: '2026-01-02T03:04:05.000Z',
          status: 'succeeded',
          type: 'network',
          color: false,
          connector_id: 'connector-1',
          connector_name: 'Hub',
          copies: 2,
          duplex: true,
          filename: 'payroll.xlsx',
          paper: 'Letter',
          printer_id: 'printer-1',
          printer_name: 'Floor 2',
          total_printed_pages: 6,
          total_printed_sheets: 4,
          user_email: 'ann@example.test',
          user_id: 'user-1',
          user_name: 'Ann Example',
        },
      },
    });
  });
  it('applies data protection: digits for the file name, no e-mail, no name', () => {
    digit = 3;
    const all = { file_name_obfuscated: true, user_email_disabled: true, user_name_disabled: true };
    const { printjob } = buildEvent('e', 0, { ...job, outcome: 'failed' }, all, digits).content;
    expect(printjob.filename).toBe('3456789012');
    expect(printjob.status).toBe('failed');
    expect('user_email' in printjob || 'user_name' in printjob).toBe(false);
    expect(printjob.user_id).toBe('user-1');
  });
  it('leaves out options the ticket does not set', () => {
    const { printjob } = buildEvent('e', 0, { ...job, ticket: { copies: 1 } }, off, digits).content;
    expect(['color', 'duplex', 'paper'].filter((k) => k in printjob)).toEqual([]);
  });
});

describe('sheetsOf', () => {
  it.each([
    [6, 2, true, 4],
    [6, 2, false, 6],
    [5, 1, true, 3],
    [7, 2, true, 4],
    [0, 1, true, 0],
  ])('%i pages, %i copies, duplex %s: %i sheets', (pages, copies, duplex, sheets) => {
    expect(sheetsOf(pages, copies, duplex)).toBe(sheets);
  });
});

describe('sampleEvent', () => {
  it('makes a sample for the topic with the ids given', () => {
    const ids = { eventId: 'e', jobId: 'j', printerId: 'p', connectorId: 'c', userId: 'u' };
    const failed = sampleEvent(ids, 0, 'printjob_failed', off, digits);
    expect([failed.topic, failed.content.printjob.status, failed.content.printjob.printer_id]).toEqual([
      'printjob_failed',
      'failed',
      'p',
    ]);
  });
});
