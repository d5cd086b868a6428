import { afterEach, describe, expect, it } from 'vitest';
import { AgentMetrics } from '../../../../src/agent/control/agent-metrics.js';

describe('AgentMetrics', () => {
  let metrics: AgentMetrics | undefined;
  afterEach(() => metrics?.clear());

  const make = () => {
    const printers = [{ name: 'Front', state: 'processing' }];
    const readers = [{ station: 'Desk', state: 'retrying' }];
    const cloud = { connected: true, reachable: true };
    metrics = new AgentMetrics(
      {
        outbox: () => ({ depth: 3, oldestAgeS: 42 }),
        cloud: () => cloud,
        printers: () => printers,
        readers: () => readers,
        jobsWaitingForDocument: () => 2,
      },
      { processMetrics: false, build: { version: '1.2.3', node: 'v22.1.0' } },
    );
    return { metrics, printers, cloud };
  };

  /** The sample lines (no HELP/TYPE) of one metric family. */
  const samples = (text: string, name: string) =>
    text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));

  it('counts jobs, bytes, refreshes, swipes and sync writes exactly as fed', async () => {
    const { metrics: m } = make();
    m.jobFinished('completed', 'Front', 1.2);
    m.jobFinished('completed', 'Front', 0.2);
    m.jobFinished('failed', 'Front', 40);
    m.downloaded(1000);
    m.printed(1000);
    m.printed(24);
    m.tokenRefresh(true);
    m.tokenRefresh(false);
    m.swipe('Desk', 'session');
    m.swipe('Desk', 'busy');
    m.syncRun(true, { create: 2, patch: 1, upload: 0 }, 0);
    m.syncRun(false, {}, 1);
    const text = await m.render();
    expect(samples(text, 'printrelay_jobs_total')).toEqual([
      'printrelay_jobs_total{state="completed",printer="Front"} 2',
      'printrelay_jobs_total{state="failed",printer="Front"} 1',
    ]);
    expect(samples(text, 'printrelay_print_latency_seconds_bucket').slice(0, 5)).toEqual([
      'printrelay_print_latency_seconds_bucket{le="0.1",printer="Front"} 0',
      'printrelay_print_latency_seconds_bucket{le="0.25",printer="Front"} 1',
      'printrelay_print_latency_seconds_bucket{le="0.5",printer="Front"} 1',
      'printrelay_print_latency_seconds_bucket{le="1",printer="Front"} 1',
      'printrelay_print_latency_seconds_bucket{le="2.5",printer="Front"} 2',
    ]);
    expect(samples(text, 'printrelay_print_latency_seconds_sum')).toEqual([
      'printrelay_print_latency_seconds_sum{printer="Front"} 41.4',
    ]);
    expect(samples(text, 'printrelay_download_bytes_total')).toEqual([
      'printrelay_download_bytes_total 1000',
    ]);
    expect(samples(text, 'printrelay_print_bytes_total')).toEqual(['printrelay_print_bytes_total 1024']);
    expect(samples(text, 'printrelay_token_refreshes_total')).toEqual(['printrelay_token_refreshes_total 2']);
    expect(samples(text, 'printrelay_token_refresh_failures_total')).toEqual([
      'printrelay_token_refresh_failures_total 1',
    ]);
    expect(samples(text, 'printrelay_reader_swipes_total')).toEqual([
      'printrelay_reader_swipes_total{station="Desk",outcome="session"} 1',
      'printrelay_reader_swipes_total{station="Desk",outcome="busy"} 1',
    ]);
    expect(samples(text, 'printrelay_sync_runs_total')).toEqual([
      'printrelay_sync_runs_total{result="ok"} 1',
      'printrelay_sync_runs_total{result="failed"} 1',
    ]);
    expect(samples(text, 'printrelay_sync_write_requests_total')).toEqual([
      'printrelay_sync_write_requests_total{kind="create"} 2',
      'printrelay_sync_write_requests_total{kind="patch"} 1',
    ]);
    expect(samples(text, 'printrelay_sync_write_failures_total')).toEqual([
      'printrelay_sync_write_failures_total 1',
    ]);
  });

  it('reads outbox, printer and reader gauges at scrape time, dropping printers that went away', async () => {
    const { metrics: m, printers } = make();
    let text = await m.render();
    expect(samples(text, 'printrelay_outbox_depth')).toEqual(['printrelay_outbox_depth 3']);
    expect(samples(text, 'printrelay_outbox_oldest_age_seconds')).toEqual([
      'printrelay_outbox_oldest_age_seconds 42',
    ]);
    expect(samples(text, 'printrelay_jobs_waiting_for_document')).toEqual([
      'printrelay_jobs_waiting_for_document 2',
    ]);
    expect(samples(text, 'printrelay_printer_state')).toEqual([
      'printrelay_printer_state{printer="Front",state="idle"} 0',
      'printrelay_printer_state{printer="Front",state="processing"} 1',
      'printrelay_printer_state{printer="Front",state="stopped"} 0',
      'printrelay_printer_state{printer="Front",state="unreachable"} 0',
    ]);
    expect(samples(text, 'printrelay_reader_state')).toContain(
      'printrelay_reader_state{station="Desk",state="retrying"} 1',
    );
    printers.splice(0, 1, { name: 'Back', state: 'unreachable' });
    text = await m.render();
    expect(samples(text, 'printrelay_printer_state').filter((l) => l.endsWith(' 1'))).toEqual([
      'printrelay_printer_state{printer="Back",state="unreachable"} 1',
    ]);
    expect(text).not.toContain('printer="Front"');
  });

  it('adds the process metrics unless told not to', async () => {
    const with_ = new AgentMetrics({
      outbox: () => ({ depth: 0, oldestAgeS: 0 }),
      cloud: () => ({ connected: false, reachable: false }),
      printers: () => [],
      readers: () => [],
    });
    try {
      expect(await with_.render()).toContain('\nprocess_resident_memory_bytes ');
    } finally {
      with_.clear();
    }
    const { metrics: m } = make();
    expect(await m.render()).not.toContain('process_resident_memory_bytes');
  });

  it('says which version runs on which Node.js, 1 whatever else happens', async () => {
    const { metrics: m } = make();
    expect(samples(await m.render(), 'printrelay_build_info')).toEqual([
      'printrelay_build_info{version="1.2.3",node="v22.1.0"} 1',
    ]);
  });

  it('shows the cloud connection as it is at each scrape', async () => {
    const { metrics: m, cloud } = make();
    let text = await m.render();
    expect(samples(text, 'printrelay_cloud_connected')).toEqual(['printrelay_cloud_connected 1']);
    expect(samples(text, 'printrelay_cloud_reachable')).toEqual(['printrelay_cloud_reachable 1']);
    cloud.connected = false;
    text = await m.render();
    expect(samples(text, 'printrelay_cloud_connected')).toEqual(['printrelay_cloud_connected 0']);
    expect(samples(text, 'printrelay_cloud_reachable')).toEqual(['printrelay_cloud_reachable 1']);
    cloud.reachable = false;
    expect(samples(await m.render(), 'printrelay_cloud_reachable')).toEqual(['printrelay_cloud_reachable 0']);
  });
});
