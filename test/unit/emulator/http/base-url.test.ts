import { describe, expect, it } from 'vitest';
import { BaseUrlPolicy } from '../../../../src/emulator/http/base-url.js';

function request(headers: Record<string, string>) {
  return { headers, protocol: 'http', host: headers.host ?? '' };
}

const loopback = { address: '127.0.0.1', family: 'IPv4', port: 8443 };

describe('BaseUrlPolicy', () => {
  it('hands out the listen address for a Host header naming another host', () => {
    const policy = new BaseUrlPolicy();
    expect(policy.listening('https', loopback)).toBe('https://127.0.0.1:8443');
    for (const host of ['evil.example', 'evil.example:8443', '127.0.0.1:9999', 'a/b', ''])
      expect(policy.forRequest(request({ host }))).toBe('https://127.0.0.1:8443');
  });

  it('keeps the host the client used when it names this listener (localhost, ::1, the address)', () => {
    const policy = new BaseUrlPolicy();
    policy.listening('https', loopback);
    expect(policy.forRequest(request({ host: 'localhost:8443' }))).toBe('https://localhost:8443');
    expect(policy.forRequest(request({ host: 'LOCALHOST:8443' }))).toBe('https://LOCALHOST:8443');
    expect(policy.forRequest(request({ host: '[::1]:8443' }))).toBe('https://[::1]:8443');
    expect(policy.forRequest(request({ host: '127.0.0.1:8443' }))).toBe('https://127.0.0.1:8443');
  });

  it('ignores X-Forwarded-* unless the proxy is trusted', () => {
    const forwarded = {
      host: 'evil.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'print.example.com',
      'x-forwarded-port': '8443',
    };
    const plain = new BaseUrlPolicy();
    plain.listening('http', { ...loopback, port: 8080 });
    expect(plain.forRequest(request(forwarded))).toBe('http://127.0.0.1:8080');
    const behindProxy = new BaseUrlPolicy({ trustProxy: true });
    behindProxy.listening('http', { ...loopback, port: 8080 });
    expect(behindProxy.forRequest(request(forwarded))).toBe('https://print.example.com:8443');
    expect(
      behindProxy.forRequest(
        request({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'print.example.com' }),
      ),
    ).toBe('https://print.example.com');
    expect(behindProxy.forRequest(request({ 'x-forwarded-host': 'print.example.com:8000, proxy2' }))).toBe(
      'http://print.example.com:8000',
    );
    expect(behindProxy.forRequest(request({ 'x-forwarded-host': 'bad host/' }))).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it('a configured public URL wins over everything', () => {
    const policy = new BaseUrlPolicy({ publicUrl: 'https://print.example.com/', trustProxy: true });
    policy.listening('http', loopback);
    expect(policy.forRequest(request({ host: 'localhost:8443', 'x-forwarded-host': 'x.example' }))).toBe(
      'https://print.example.com',
    );
  });

  it('on all interfaces, the loopback addresses and localhost name this listener', () => {
    const policy = new BaseUrlPolicy();
    expect(policy.listening('http', { address: '0.0.0.0', family: 'IPv4', port: 8080 })).toBe(
      'http://0.0.0.0:8080',
    );
    expect(policy.forRequest(request({ host: '127.0.0.1:8080' }))).toBe('http://127.0.0.1:8080');
    expect(policy.forRequest(request({ host: 'localhost:8080' }))).toBe('http://localhost:8080');
    expect(policy.forRequest(request({ host: 'evil.example:8080' }))).toBe('http://0.0.0.0:8080');
  });
});
