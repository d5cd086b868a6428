/**
 * A job offer as the cloud sends it, for tests of the agent's ledger and job runner: a one-page
 * PDF for printer p1, with any field of the document replaced by the caller.
 */
import type { JobDocument, JobOffer } from '../../src/protocol/connector-channel.js';

export function jobOffer(id: string, document: Partial<JobDocument> = {}): JobOffer {
  return {
    job_id: id,
    printer_id: 'p1',
    tp_id: 1,
    document: {
      url: `/d/${id}`,
      size: 5,
      sha256: 'x',
      extension: 'pdf',
      content_type: 'application/pdf',
      name: 'a.pdf',
      ...document,
    },
    ticket: { copies: 1 },
    user: { id: 'u', email: 'u@example.com', name: 'U' },
    created: '2026-01-01T00:00:00Z',
  };
}
