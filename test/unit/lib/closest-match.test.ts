import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from '../../../src/lib/closest-match.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['url', 'url', 0],
    ['ulr', 'url', 1],
    ['client_idd', 'client_id', 1],
    ['printrs', 'printers', 1],
    ['kitten', 'sitting', 3],
  ])('%j -> %j is %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
  });
});

describe('closestMatch', () => {
  const keys = ['url', 'client_id', 'client_secret', 'channel', 'poll_interval_s'];
  it.each([
    ['ulr', 'url'],
    ['clientid', 'client_id'],
    ['Client_Secret', 'client_secret'],
    ['chanel', 'channel'],
    ['bogus', undefined],
    ['x', undefined],
  ])('%j suggests %j', (word, expected) => {
    expect(closestMatch(word, keys)).toBe(expected);
  });
});
