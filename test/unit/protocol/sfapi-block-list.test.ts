import { describe, expect, it } from 'vitest';
import { blockKey, MAX_BLOCK_ID_BYTES, parseBlockList } from '../../../src/protocol/sfapi-block-list.js';
import { thrownValidationError } from '../../support/validation-refusals.js';

describe('blockKey', () => {
  it.each([
    ['QUJD', '414243'],
    ['AA==', '00'],
    ['AAA=', '0000'],
    ['ab+/', '69bfbf'],
    ['1234', 'd76df8'],
  ])('answers the hex of the bytes of %s', (id, hex) => {
    expect(blockKey(id)).toBe(hex);
  });
  it.each(['!AAA', 'AAA!', 'AA=A', 'A===', 'AAAAA', 'AAAAAA', 'AA AA', ''])(
    'refuses %j as not base64',
    (id) => {
      const error = thrownValidationError(() => blockKey(id));
      expect([error.field, error.rule]).toEqual(['blockid', 'must be base64']);
    },
  );
  it('accepts an id of 64 bytes and refuses one of 65', () => {
    expect(MAX_BLOCK_ID_BYTES).toBe(64);
    const longest = Buffer.alloc(64, 7).toString('base64');
    expect(blockKey(longest)).toBe('07'.repeat(64));
    const error = thrownValidationError(() => blockKey(Buffer.alloc(65, 7).toString('base64')));
    expect([error.field, error.rule]).toEqual(['blockid', 'must decode to 1 to 64 bytes']);
  });
});

describe('parseBlockList', () => {
  it('keeps the entries in blob order with their kinds', () => {
    const xml =
      '<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>QUFB</Latest><Committed>QkJC</Committed>' +
      '<Uncommitted>Q0ND</Uncommitted><Latest>1234</Latest></BlockList>';
    expect(parseBlockList(xml)).toEqual([
      { kind: 'Latest', id: 'QUFB' },
      { kind: 'Committed', id: 'QkJC' },
      { kind: 'Uncommitted', id: 'Q0ND' },
      { kind: 'Latest', id: '1234' },
    ]);
  });
  it('reads an indented list with attributes and comments', () => {
    const xml =
      '<BlockList xmlns="x">\n  <!-- c -->\n  <Latest a="1">\n    QUFB\n  </Latest>\n</BlockList>\n';
    expect(parseBlockList(xml)).toEqual([{ kind: 'Latest', id: 'QUFB' }]);
  });
  it('answers no entries for an empty list', () => {
    expect(parseBlockList('<BlockList></BlockList>')).toEqual([]);
  });
  it.each([
    ['<a', 'must be XML (readTagExp returned undefined at position 0. Context: "<a")'],
    ['', 'must have a BlockList root element'],
    ['<Other><Latest>QUFB</Latest></Other>', 'must have a BlockList root element'],
    ['<BlockList><Block>QUFB</Block></BlockList>', 'unknown element Block'],
    ['<BlockList>x<Latest>QUFB</Latest></BlockList>', 'unknown element #text'],
    ['<BlockList><Latest></Latest></BlockList>', 'empty Latest entry'],
    ['<BlockList><Committed/></BlockList>', 'empty Committed entry'],
    ['<BlockList><Uncommitted><x>QUFB</x></Uncommitted></BlockList>', 'empty Uncommitted entry'],
  ])('refuses %j', (xml, rule) => {
    const error = thrownValidationError(() => parseBlockList(xml));
    expect([error.field, error.rule]).toEqual(['blocklist', rule]);
  });
  it('refuses an entry whose id is not base64, naming the block id', () => {
    const error = thrownValidationError(() => parseBlockList('<BlockList><Latest>QUF!</Latest></BlockList>'));
    expect([error.field, error.rule]).toEqual(['blockid', 'must be base64']);
  });
});
