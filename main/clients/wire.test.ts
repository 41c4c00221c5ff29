import { describe, expect, it } from 'vitest';
import { LineSplitter, parseClientHello } from './wire.ts';

describe('the service wire', () => {
  it('splits lines across chunks, skips empty lines, and stops at a line over the limit', () => {
    const lines: string[] = [];
    let overflow = 0;
    const s = new LineSplitter((l) => lines.push(l), () => overflow++, 10);
    s.push('{"a":1}\n{"b"');
    s.push(':2}\n\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    s.push('0123456789A');
    expect(overflow).toBe(1);
    s.push('\n{"c":3}\n');
    expect(lines).toHaveLength(2);
  });

  it('reads a hello, or says in one sentence what is wrong with it', () => {
    const good = { t: 'hello', protocol: 1, version: '0.2.0', token: 'ab12', client: 'serve', pid: 7, cwd: '/home/ada' };
    expect(parseClientHello(JSON.stringify(good))).toEqual(good);
    expect(parseClientHello('nope')).toMatch(/^the first line was not JSON/);
    expect(parseClientHello('{"t":"req"}')).toMatch(/^the first line was not a hello/);
    expect(parseClientHello(JSON.stringify({ ...good, protocol: '1' }))).toMatch(/no protocol number/);
    expect(parseClientHello(JSON.stringify({ ...good, token: 'Z!' }))).toMatch(/no token/);
    expect(parseClientHello(JSON.stringify({ ...good, client: 'phone' }))).toMatch(/client "phone" is not known/);
    // A cwd that is not an absolute path, or holds a line break, is dropped, not trusted.
    expect(parseClientHello(JSON.stringify({ ...good, cwd: 'relative' }))).not.toHaveProperty('cwd');
    expect(parseClientHello(JSON.stringify({ ...good, cwd: '/a\nb' }))).not.toHaveProperty('cwd');
  });
});
