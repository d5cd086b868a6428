import { jobOffer } from '../../support/job-offers.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import type { JobOffer } from '../../../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase, SCHEMA_VERSION } from '../../../src/store/agent-db.js';
import { canMove, JobLedger, type JobState, LedgerTransitionError } from '../../../src/store/job-ledger.js';

function offer(id: string): JobOffer {
  return jobOffer(id, { size: 3 });
}

describe('ledger state machine', () => {
  const table: [JobState, JobState, boolean][] = [
    ['offered', 'downloading', true],
    ['offered', 'submitted', false],
    ['downloading', 'spooled', true],
    ['downloading', 'downloading', true],
    ['spooled', 'submitting', true],
    ['spooled', 'submitted', false],
    ['submitting', 'submitted', true],
    ['submitting', 'spooled', true],
    ['submitted', 'completed', true],
    ['submitted', 'spooled', false],
    ['offered', 'failed', true],
    ['submitted', 'cancelled', true],
    ['completed', 'failed', false],
    ['failed', 'downloading', false],
    ['cancelled', 'completed', false],
  ];
  it.each(table)('%s -> %s allowed: %s', (from, to, allowed) => {
    expect(canMove(from, to)).toBe(allowed);
  });
});

describe('JobLedger', () => {
  let db: AgentDatabase;
  let clock: ManualClock;
  let ledger: JobLedger;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    clock = new ManualClock();
    ledger = new JobLedger(db, clock);
  });
  afterEach(() => db.close());

  it('answers every move with exactly the row it stored', () => {
    ledger.add(offer('j-row'));
    const steps: [JobState, Parameters<JobLedger['move']>[2]][] = [
      ['downloading', {}],
      ['spooled', { spoolPath: '/spool/j-row.pdf' }],
      ['submitting', { attempt: true }],
      ['spooled', { nextRetryAt: clock.now() + 50, lastError: 'busy' }],
      ['submitting', { attempt: true }],
      ['submitted', { printerJobId: '17' }],
      ['completed', {}],
    ];
    for (const [to, details] of steps) {
      clock.advance(7);
      expect(ledger.move('j-row', to, details)).toEqual(ledger.get('j-row'));
    }
    expect(ledger.get('j-row')).toMatchObject({
      attempts: 2,
      lastError: 'busy',
      printerJobId: '17',
      spoolPath: '/spool/j-row.pdf',
      firstTryAt: Date.UTC(2026, 0, 1) + 21,
      nextRetryAt: undefined,
    });
  });

  it('migrates to the current schema version', () => {
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  it('adds a job once; a repeated offer is ignored', () => {
    expect(ledger.add(offer('j1'))).toBe(true);
    expect(ledger.add(offer('j1'))).toBe(false);
    expect(ledger.get('j1')?.state).toBe('offered');
    expect(ledger.get('j1')?.offer.document.name).toBe('a.pdf');
  });

  it('walks the happy path and records attempts, spool path and printer job id', () => {
    ledger.add(offer('j1'));
    ledger.move('j1', 'downloading');
    ledger.move('j1', 'spooled', { spoolPath: '/spool/j1.pdf' });
    clock.advance(1000);
    ledger.move('j1', 'submitting', { attempt: true });
    ledger.move('j1', 'spooled', { lastError: 'busy', nextRetryAt: clock.now() + 500 });
    ledger.move('j1', 'submitting', { attempt: true });
    const submitted = ledger.move('j1', 'submitted', { printerJobId: '42' });
    expect(submitted).toMatchObject({
      state: 'submitted',
      attempts: 2,
      printerJobId: '42',
      spoolPath: '/spool/j1.pdf',
      lastError: 'busy',
      firstTryAt: Date.UTC(2026, 0, 1) + 1000,
    });
    ledger.move('j1', 'completed');
    expect(ledger.unfinished()).toEqual([]);
  });

  it('refuses forbidden moves with a clear error', () => {
    ledger.add(offer('j1'));
    expect(() => ledger.move('j1', 'submitted')).toThrow(LedgerTransitionError);
    expect(() => ledger.move('j1', 'submitted')).toThrow('cannot move from offered to submitted');
    ledger.move('j1', 'cancelled');
    expect(() => ledger.move('j1', 'failed')).toThrow('cannot move from cancelled to failed');
  });

  it('lists unfinished jobs and jobs by state', () => {
    ledger.add(offer('a'));
    clock.advance(1);
    ledger.add(offer('b'));
    ledger.move('a', 'failed', { lastError: 'x' });
    expect(ledger.unfinished().map((j) => j.jobId)).toEqual(['b']);
    expect(ledger.inState('failed').map((j) => j.lastError)).toEqual(['x']);
  });

  it('resumes by arrival, also for jobs of the same millisecond whose ids sort the other way', () => {
    for (const id of ['f3c1', '0b7e', 'a9d2', '07aa']) ledger.add(offer(id));
    ledger.move('a9d2', 'failed');
    // Even after the newest row is pruned, a later job still comes after every earlier one.
    ledger.add(offer('ee01'));
    ledger.move('ee01', 'cancelled');
    expect(ledger.prune(clock.now() + 1)).toBe(2);
    ledger.add(offer('0000'));
    expect(ledger.unfinished().map((j) => j.jobId)).toEqual(['f3c1', '0b7e', '07aa', '0000']);
  });

  it('keeps the printer jobs of earlier attempts apart from the current attempt', () => {
    ledger.add(offer('j1'));
    ledger.move('j1', 'downloading');
    ledger.move('j1', 'spooled', { spoolPath: '/spool/j1.pdf' });
    ledger.move('j1', 'submitting', { attempt: true });
    ledger.recordPrinterJob('j1', '7');
    ledger.markDocumentFlushed('j1');
    expect(ledger.get('j1')).toMatchObject({ printerJobId: '7', documentFlushed: true, documentSent: false });
    ledger.move('j1', 'spooled', { nextRetryAt: clock.now() });
    const again = ledger.move('j1', 'submitting', { attempt: true });
    expect(again).toMatchObject({
      printerJobId: undefined,
      earlierPrinterJobs: ['7'],
      documentFlushed: false,
    });
    expect(ledger.get('j1')).toEqual(again);
  });

  it('records the document of the current attempt as sent and flushed, by a move or on its own', () => {
    const submitting = (id: string) => {
      ledger.add(offer(id), 'spooled');
      ledger.move(id, 'submitting', { attempt: true });
    };
    // A move saying the printer answered the document: sent, so flushed too.
    submitting('j-sent');
    const sent = ledger.move('j-sent', 'submitted', { printerJobId: '3', documentSent: true });
    expect(sent).toMatchObject({ documentSent: true, documentFlushed: true });
    expect(ledger.get('j-sent')).toEqual(sent);
    // A move saying nothing keeps what was recorded: flushed stays flushed, unflushed stays so.
    submitting('j-flushed');
    ledger.markDocumentFlushed('j-flushed', '4');
    expect(ledger.move('j-flushed', 'submitting', {})).toMatchObject({
      documentSent: false,
      documentFlushed: true,
    });
    submitting('j-plain');
    expect(ledger.move('j-plain', 'submitting', {})).toMatchObject({
      documentSent: false,
      documentFlushed: false,
    });
    // The flush record given up.
    expect(ledger.move('j-flushed', 'submitting', { documentFlushed: false })).toMatchObject({
      documentFlushed: false,
    });
    expect(ledger.get('j-flushed')).toMatchObject({ printerJobId: '4', documentFlushed: false });
    // On its own: sent and flushed at once.
    submitting('j-mark');
    ledger.markDocumentSent('j-mark');
    expect(ledger.get('j-mark')).toMatchObject({ documentSent: true, documentFlushed: true });
    expect(ledger.get('j-plain')).toMatchObject({ documentSent: false, documentFlushed: false });
  });

  it("records a spooled job's spool file written later, of that job only", () => {
    ledger.add(offer('j-mem'), 'spooled');
    ledger.add(offer('j-other'), 'spooled');
    expect(ledger.get('j-mem')?.spoolPath).toBeUndefined();
    ledger.recordSpoolFile('j-mem', '/spool/j-mem.pdf');
    expect(ledger.get('j-mem')).toMatchObject({ state: 'spooled', spoolPath: '/spool/j-mem.pdf' });
    expect(ledger.get('j-other')?.spoolPath).toBeUndefined();
  });

  it('prunes final jobs older than a cut-off', () => {
    ledger.add(offer('a'));
    ledger.move('a', 'failed');
    clock.advance(10_000);
    ledger.add(offer('b'));
    expect(ledger.prune(clock.now() - 5000)).toBe(1);
    expect(ledger.get('a')).toBeUndefined();
    expect(ledger.get('b')).toBeDefined();
  });
});
