import { describe, expect, it } from 'vitest';
import { baseName, shortLocation } from './locations.ts';

describe('artifact locations', () => {
  it('names the file at the end of a path or URL', () => {
    expect(baseName('/tmp/x/report.html')).toBe('report.html');
    expect(baseName('file:///tmp/My%20Notes.md')).toBe('My Notes.md');
    expect(baseName('https://example.com/a/b.png?x=1#top')).toBe('b.png');
    expect(baseName('https://example.com/')).toBe('example.com');
  });
  it('shows where it is, short', () => {
    expect(shortLocation('/home/me/project/out/report.html')).toBe('…/project/out');
    expect(shortLocation('/tmp/report.html')).toBe('/tmp');
    expect(shortLocation('/report.html')).toBe('/');
    expect(shortLocation('file:///a/b/c/d.md')).toBe('…/b/c');
    expect(shortLocation('https://example.com/x/y.png')).toBe('example.com');
  });
});
