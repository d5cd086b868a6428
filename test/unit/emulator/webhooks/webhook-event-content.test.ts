import { describe, expect, it } from 'vitest';
import {
  buildEvent,
  buildLocalCopyEvent,
  type FinishedJobFacts,
  type LocalCopyFacts,
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
  it('carries the reason of a failed job, and none for a job that printed', () => {
    const failureReason = 'document-format application/msword not supported';
    const failed = buildEvent('e', 0, { ...job, outcome: 'failed', failureReason }, off, digits);
    expect(failed.content.printjob.failure_reason).toBe(failureReason);
    const printed = buildEvent('e', 0, { ...job, outcome: 'succeeded', failureReason: 'note' }, off, digits);
    expect('failure_reason' in printed.content.printjob).toBe(false);
  });
  it('leaves out options the ticket does not set', () => {
    const { printjob } = buildEvent('e', 0, { ...job, ticket: { copies: 1 } }, off, digits).content;
    expect(['color', 'duplex', 'paper'].filter((k) => k in printjob)).toEqual([]);
  });
});

describe('buildLocalCopyEvent', () => {
  const copy: LocalCopyFacts = {
    jobId: 'copy-1',
    createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
    outcome: 'succeeded',
    fields: { Color: 0, Copies: 3, Duplex: 0, Filename: 'scan.tif', PaperId: 1, TotalPrintedPages: 9 },
    printer: { id: 'printer-1', name: 'Floor 2' },
    connector: { id: 'connector-1', name: 'Hub' },
    user: { id: 'user-1', email: 'ann@example.test', name: 'Ann Example' },
  };
  it('carries what the device reported, type local_copy, and the required-when fields', () => {
    expect(buildLocalCopyEvent('event-2', Date.UTC(2026, 0, 2, 3, 6), copy, off, digits)).toEqual({
      created: '2026-01-02T03:06:00.000Z',
      event_id: 'event-2',
      topic: 'printjob_succeeded',
      content: {
        printjob: {
          printjob_id: 'copy-1',
          created: '2026-01-02T03:04:05.000Z',
          status: 'succeeded',
          type: 'local_copy',
          color: false,
          connector_id: 'connector-1',
          connector_name: 'Hub',
          copies: 3,
          duplex: false,
          filename: 'scan.tif',
          paper: 'Letter',
          printer_id: 'printer-1',
          printer_name: 'Floor 2',
          total_printed_pages: 9,
          user_email: 'ann@example.test',
          user_id: 'user-1',
          user_name: 'Ann Example',
        },
      },
    });
  });
  it('names the paper by PaperName before PaperId, and leaves out what was not reported', () => {
    const named = { ...copy, fields: { PaperId: 1, PaperName: 'Oversize 9x14' } };
    const { printjob } = buildLocalCopyEvent('e', 0, { ...named, outcome: 'failed' }, off, digits).content;
    expect(printjob).toEqual({
      printjob_id: 'copy-1',
      created: '2026-01-02T03:04:05.000Z',
      status: 'failed',
      type: 'local_copy',
      connector_id: 'connector-1',
      connector_name: 'Hub',
      paper: 'Oversize 9x14',
      printer_id: 'printer-1',
      printer_name: 'Floor 2',
      user_email: 'ann@example.test',
      user_id: 'user-1',
      user_name: 'Ann Example',
    });
  });
  it('applies data protection to a copy job as to a network job', () => {
    digit = 0;
    const all = { file_name_obfuscated: true, user_email_disabled: true, user_name_disabled: true };
    const { printjob } = buildLocalCopyEvent('e', 0, copy, all, digits).content;
    expect([printjob.filename, 'user_email' in printjob, 'user_name' in printjob, printjob.user_id]).toEqual([
      '0123456789',
      false,
      false,
      'user-1',
    ]);
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
