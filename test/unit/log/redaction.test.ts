import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { maskCardNumber, Redactor } from '../../../src/log/redaction.js';
import { logCapture } from '../../support/log-capture.js';

describe('Redactor', () => {
  const r = new Redactor();
  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
    ['Basic YWRtaW46c2VjcmV0', 'Basic [redacted]'],
    ['http://h:1/storage/x?sig=abc&se=123', 'http://h:1/storage/x?[redacted]'],
    [
      'grant_type=password&password=hunter22&username=a',
      'grant_type=password&password=[redacted]&username=a',
    ],
    ['ipp://user:pw@printer/ipp', 'ipp://[redacted]@printer/ipp'],
    ['token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl end', 'token [redacted] end'],
  ])('scrubs %s', (input, expected) => {
    expect(r.scrubString(input)).toBe(expected);
  });
  it('censors secret keys at any depth and registered exact values', () => {
    const red = new Redactor();
    red.add('04A1B2C3D4');
    const out = red.scrub({ a: { password: 'x', card: '1234' }, msg: 'card 04A1B2C3D4 seen' }) as Record<
      string,
      Record<string, unknown>
    >;
    expect(out.a).toEqual({ password: '[redacted]', card: '[redacted]' });
    expect(out.msg).toBe('card [redacted] seen');
  });
  it('censors webhook Basic passwords by field name', () => {
    const out = new Redactor().scrub({
      endpoint: { basic_password: 'hook-pass-1', basicPassword: 'hook-pass-2' },
    });
    expect(out).toEqual({ endpoint: { basic_password: '[redacted]', basicPassword: '[redacted]' } });
  });
  it('masks card numbers for display', () => {
    expect(maskCardNumber('04A1B2C3D4')).toBe('********D4');
  });
});

describe('createLogger', () => {
  it('never writes registered secrets, secret fields or signed URLs', () => {
    const { lines, destination } = logCapture();
    const redactor = new Redactor();
    redactor.add('demo-device');
    const log = createLogger({ destination, redactor }).child({ printer: 'Demo Printer' });
    log.info(
      { url: 'http://127.0.0.1/storage/f?sig=SECRETSIG', refresh_token: 'rt-123456' },
      'uploaded with demo-device',
    );
    log.error({ err: new Error('failed with Bearer tok-abcdef') }, 'oops');
    const text = lines.join('');
    expect(text).toContain('Demo Printer');
    for (const secret of ['SECRETSIG', 'rt-123456', 'demo-device', 'tok-abcdef'])
      expect(text).not.toContain(secret);
  });
});
