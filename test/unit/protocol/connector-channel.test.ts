/**
 * The connector channel's runtime rules, which the emulator and the agent share: the protocol
 * version a channel speaks, the `?protocol=` of its upgrade, the paths, the final event kinds and
 * the wire values both sides must agree on (docs/connector-protocol.md).
 */
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_CLOSE,
  CHANNEL_EVENTS_PROTOCOL,
  CLAIM_EVENTS_PROTOCOL,
  CHANNEL_PATHS,
  CHANNEL_PROTOCOL_PARAM,
  CLAIMING_DOWNLOAD_QUERY,
  CONNECTOR_PROTOCOL_VERSION,
  EVENT_SKIPPED,
  FINAL_EVENT_KINDS,
  INLINE_DOCUMENT_MAX_BYTES,
  type JobEventKind,
  MAX_EVENT_BATCH,
  negotiateProtocol,
  parseProtocolParam,
  UNASKED_CHANNEL_PROTOCOL,
  WAITING_PREFIX,
} from '../../../src/protocol/connector-channel.js';

const RULE = 'protocol must be a whole number from 1 up';

describe('protocol versions', () => {
  it('speaks version 4 at most; a channel whose agent asks none speaks 2; 3 brings channel events, 4 events on claims', () => {
    expect(CONNECTOR_PROTOCOL_VERSION).toBe(4);
    expect(UNASKED_CHANNEL_PROTOCOL).toBe(2);
    expect(CHANNEL_EVENTS_PROTOCOL).toBe(3);
    expect(CLAIM_EVENTS_PROTOCOL).toBe(4);
    expect(CHANNEL_PROTOCOL_PARAM).toBe('protocol');
  });

  it('carries documents of up to 256 KiB inline by default', () => {
    expect(INLINE_DOCUMENT_MAX_BYTES).toBe(262_144);
  });

  it.each<[number | undefined, number, number]>([
    [undefined, 3, 2],
    [undefined, 1, 1],
    [3, 3, 3],
    [2, 3, 2],
    [1, 3, 1],
    [7, 3, 3],
    [4, 4, 4],
    [4, 3, 3],
    [3, 4, 3],
    [4, 2, 2],
    [2, 4, 2],
    [undefined, 4, 2],
    [3, 2, 2],
    [0, 3, 1],
    [-4, 3, 1],
  ])('an agent asking %s of a cloud speaking up to %i speaks %i', (asked, cloudMax, spoken) => {
    expect(negotiateProtocol(asked, cloudMax)).toBe(spoken);
  });
});

describe('parseProtocolParam', () => {
  it.each([null, undefined, ''])('%j: not asked', (raw) => {
    expect(parseProtocolParam(raw)).toBeUndefined();
  });

  it.each([
    ['1', 1],
    ['3', 3],
    ['10', 10],
    ['9999', 9999],
  ])('%s: version %i', (raw, version) => {
    expect(parseProtocolParam(raw)).toBe(version);
  });

  it.each(['0', '01', '10000', '-1', '1.5', '3e0', 'x3', '3x', ' 3', '3 ', '3\n', 'three'])(
    '%j: refused, naming the parameter and the rule',
    (raw) => {
      expect(parseProtocolParam(raw)).toBe(RULE);
    },
  );
});

describe('CHANNEL_PATHS', () => {
  it('names every fixed route', () => {
    expect(CHANNEL_PATHS.register).toBe('/connector/v1/register');
    expect(CHANNEL_PATHS.channel).toBe('/connector/v1/channel');
    expect(CHANNEL_PATHS.jobs).toBe('/connector/v1/jobs');
    expect(CHANNEL_PATHS.eventBatch).toBe('/connector/v1/events');
  });

  it('puts a printer or job id into its route as one encoded path segment', () => {
    const id = 'a/b c?d';
    const encoded = 'a%2Fb%20c%3Fd';
    expect(CHANNEL_PATHS.printerProperties(id)).toBe(`/connector/v1/printers/${encoded}/properties`);
    expect(CHANNEL_PATHS.printerBlobCapabilities(id)).toBe(
      `/connector/v1/printers/${encoded}/blob_capabilities`,
    );
    expect(CHANNEL_PATHS.claim(id)).toBe(`/connector/v1/jobs/${encoded}/claim`);
    expect(CHANNEL_PATHS.document(id)).toBe(`/connector/v1/jobs/${encoded}/document`);
    expect(CHANNEL_PATHS.events(id)).toBe(`/connector/v1/jobs/${encoded}/events`);
  });

  it('claims with the document download by ?claim=1', () => {
    expect(CLAIMING_DOWNLOAD_QUERY).toEqual({ claim: '1' });
  });
});

describe('job events', () => {
  it('completed, failed and cancelled are final; no other kind is', () => {
    const kinds: JobEventKind[] = [
      'received',
      'downloading',
      'printing',
      'progress',
      'waiting',
      'completed',
      'failed',
      'cancelled',
    ];
    expect(kinds.filter((kind) => FINAL_EVENT_KINDS.has(kind))).toEqual(['completed', 'failed', 'cancelled']);
    expect(FINAL_EVENT_KINDS.size).toBe(3);
  });

  it('waiting messages start with "waiting: ", batches carry at most 100 events, a skipped one says skipped', () => {
    expect(WAITING_PREFIX).toBe('waiting: ');
    expect(MAX_EVENT_BATCH).toBe(100);
    expect(EVENT_SKIPPED).toBe('skipped');
  });
});

describe('CHANNEL_CLOSE', () => {
  it('closes with 4401 unauthorized, 4404 unknown connector, 4409 replaced, 4400 bad request', () => {
    expect(CHANNEL_CLOSE).toEqual({
      unauthorized: 4401,
      unknownConnector: 4404,
      replaced: 4409,
      badRequest: 4400,
    });
  });
});
