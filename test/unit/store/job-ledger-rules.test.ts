import { jobOffer } from '../../support/job-offers.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.js';
import { PrintRelayError } from '../../../src/lib/errors.js';
import { type AgentDatabase, openAgentDatabase } from '../../../src/store/agent-db.js';
import {
  canMove,
  isFinalState,
  JobLedger,
  type JobState,
  LedgerTransitionError,
} from '../../../src/store/job-ledger.js';

const STATES: JobState[] = [
  'offered',
  'downloading',
  'spooled',
  'submitting',
  'submitted',
  'completed',
  'failed',
  'cancelled',
];
const FINAL: JobState[] = ['completed', 'failed', 'cancelled'];

/** The code a call throws, or `none`. */
function codeOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof PrintRelayError) return error.code;
    throw error;
  }
  return 'none';
}

describe('ledger final states (exactly once)', () => {
  it.each(FINAL)('%s is final and moves nowhere, not even to failed or cancelled', (from) => {
    expect(isFinalState(from)).toBe(true);
    for (const to of STATES) expect(canMove(from, to), `${from} -> ${to}`).toBe(false);
  });

  it('counts no other state as final', () => {
    expect(STATES.filter(isFinalState)).toEqual(FINAL);
  });

  it('lets a submit whose outcome is unknown stay submitting while the printer is asked', () => {
    expect(canMove('submitting', 'submitting')).toBe(true);
  });
});

describe('JobLedger refusals', () => {
  let db: AgentDatabase;
  let ledger: JobLedger;
  beforeEach(() => {
    db = openAgentDatabase(':memory:');
    ledger = new JobLedger(db, new ManualClock());
  });
  afterEach(() => db.close());

  it('refuses to move a failed job again, with the invalid_transition code', () => {
    ledger.add(jobOffer('j-failed', { size: 3 }));
    ledger.move('j-failed', 'failed', { lastError: 'paper jam' });
    for (const to of ['downloading', 'completed', 'failed', 'cancelled'] as const) {
      expect(() => ledger.move('j-failed', to)).toThrow(LedgerTransitionError);
      expect(codeOf(() => ledger.move('j-failed', to))).toBe('invalid_transition');
    }
    expect(ledger.get('j-failed')).toMatchObject({ state: 'failed', lastError: 'paper jam' });
  });

  it('answers a move of an unknown job with not_found, naming the job, and records nothing', () => {
    expect(codeOf(() => ledger.move('j-unknown', 'downloading'))).toBe('not_found');
    expect(() => ledger.move('j-unknown', 'downloading')).toThrow('job j-unknown not in the ledger');
    expect(ledger.get('j-unknown')).toBeUndefined();
  });
});
