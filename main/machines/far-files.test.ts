import { describe, expect, it } from 'vitest';
import { farType, parseFarPath } from './far-files.ts';

describe('far files: the path and what a far host may say of a file', () => {
  it('reads /m/<machine>/<prefix>/<rest>, and nothing else', () => {
    expect(parseFarPath('build-box/artifact/p1/s1/a.html')).toEqual({ machine: 'build-box', prefix: 'artifact', rest: 'p1/s1/a.html' });
    for (const bad of ['build-box', 'build-box/artifact', 'build-box/artifact/', '../x/artifact/a', 'box/Artifact/a', 'box/artifact/a\0b', '-x/artifact/a']) expect(parseFarPath(bad)).toBeUndefined();
  });

  it('keeps a plain media type and makes anything else octet-stream', () => {
    expect(farType('text/html; charset=utf-8')).toBe('text/html; charset=utf-8');
    expect(farType('image/png')).toBe('image/png');
    for (const bad of ['text/html\r\nSet-Cookie: a=b', 'application/javascript', 'text/html; charset=utf-7', 42, undefined]) expect(farType(bad)).toBe('application/octet-stream');
  });
});
