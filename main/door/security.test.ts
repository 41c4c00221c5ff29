import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cookieToken, hostAllowed, inlineScriptHashes, loopbackBindAddress, newToken, originAllowed, rendererCsp, setCookie, tokensEqual, withScriptHashes } from './security.ts';
import { parseServeArgs } from '../serve/main.ts';

describe('serve security checks', () => {
  it('binds only loopback', () => {
    expect(loopbackBindAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(loopbackBindAddress('localhost')).toBe('127.0.0.1');
    expect(loopbackBindAddress('::1')).toBe('::1');
    expect(loopbackBindAddress('[::1]')).toBe('::1');
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '127.0.0.2', '']) expect(loopbackBindAddress(h), h).toBeUndefined();
  });

  it('accepts only Host headers naming this server', () => {
    expect(hostAllowed('127.0.0.1:8080', 8080)).toBe(true);
    expect(hostAllowed('LOCALHOST:8080', 8080)).toBe(true);
    expect(hostAllowed('[::1]:8080', 8080)).toBe(true);
    for (const h of ['127.0.0.1', '127.0.0.1:8081', 'evil.com:8080', 'localhost.evil.com:8080', undefined]) expect(hostAllowed(h, 8080), String(h)).toBe(false);
  });

  it('accepts only the same origin for the WebSocket', () => {
    expect(originAllowed('http://127.0.0.1:80', '127.0.0.1:80', 80)).toBe(true);
    expect(originAllowed('http://localhost:80', 'localhost:80', 80)).toBe(true);
    expect(originAllowed('http://localhost:80', '127.0.0.1:80', 80)).toBe(false);
    expect(originAllowed('https://127.0.0.1:80', '127.0.0.1:80', 80)).toBe(false);
    expect(originAllowed('null', '127.0.0.1:80', 80)).toBe(false);
    expect(originAllowed(undefined, '127.0.0.1:80', 80)).toBe(false);
    expect(originAllowed('http://evil.com:80', 'evil.com:80', 80)).toBe(false);
  });

  it('makes 64-hex tokens and compares them exactly', () => {
    const t = newToken();
    expect(t).toMatch(/^[0-9a-f]{64}$/);
    expect(newToken()).not.toBe(t);
    expect(tokensEqual(t, t)).toBe(true);
    expect(tokensEqual(t.slice(1), t)).toBe(false);
    expect(tokensEqual(undefined, t)).toBe(false);
    expect(tokensEqual(null, t)).toBe(false);
  });

  it('reads the token cookie among others', () => {
    expect(cookieToken('a=1; td_token=abc; b=2')).toBe('abc');
    expect(cookieToken('td_token_x=1')).toBeUndefined();
    expect(cookieToken(undefined)).toBeUndefined();
    expect(setCookie('abc')).toBe('td_token=abc; HttpOnly; SameSite=Strict; Path=/');
  });

  it('has a strict CSP', () => {
    const csp = rendererCsp(1234);
    for (const part of ["default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:", "frame-src 'self' blob:", "object-src 'none'", "base-uri 'none'", 'ws://127.0.0.1:1234']) {
      expect(csp).toContain(part);
    }
    expect(csp).not.toContain('unsafe-eval');
  });

  it('allows the built page\'s inline scripts by their hash, and nothing else inline', () => {
    const html = '<html><head><script>globalThis.a=1</script><script defer src="./assets/v.js"></script><script type="module" src="./m.js"></script></head><body><script></script></body></html>';
    const hashes = inlineScriptHashes(html);
    expect(hashes).toEqual(["'sha256-" + createHash('sha256').update('globalThis.a=1').digest('base64') + "'"]);
    expect(inlineScriptHashes(html)).toBe(hashes);
    expect(inlineScriptHashes('<html><script src="x.js"></script></html>')).toEqual([]);
    const csp = withScriptHashes(rendererCsp(1234), hashes);
    expect(csp).toContain(`script-src 'self' ${hashes[0]};`);
    expect(/script-src [^;]*unsafe-inline/.test(csp)).toBe(false);
    expect(rendererCsp(1234)).toContain("script-src 'self';");
    expect(withScriptHashes("default-src 'self'; script-src 'self'; object-src 'none'", hashes)).toBe(`default-src 'self'; script-src 'self' ${hashes[0]}; object-src 'none'`);
    expect(withScriptHashes("script-src 'self'", [])).toBe("script-src 'self'");
  });
});

describe('serve arguments', () => {
  it('parses the options', () => {
    expect(parseServeArgs([])).toEqual({ port: undefined, host: '127.0.0.1', fresh: false, cwd: undefined, open: true });
    expect(parseServeArgs(['--port', '8123', '--fresh', '--no-open', '--cwd', '/tmp'])).toEqual({ port: 8123, host: '127.0.0.1', fresh: true, cwd: '/tmp', open: false });
  });
  it('refuses bad ones in one sentence', () => {
    expect(parseServeArgs(['--port', '0']).port).toBe(0);
    expect(() => parseServeArgs(['--port', 'x'])).toThrow(/--port x is not a port/);
    expect(() => parseServeArgs(['--port', '70000'])).toThrow(/is not a port/);
    expect(() => parseServeArgs(['--cwd', '/definitely/not/here'])).toThrow(/is not a folder/);
    expect(() => parseServeArgs(['--bogus'])).toThrow(/usage: serve/);
    expect(() => parseServeArgs(['--fresh', '--service-socket', '/tmp/s', '--service-token', '/tmp/t'])).toThrow(/^--fresh starts this machine's service afresh and --service-socket reaches another's: give one of them$/);
  });
});
