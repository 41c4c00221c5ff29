import { describe, expect, it } from 'vitest';
import { OutputLines } from './lines.ts';

describe('OutputLines', () => {
  it('numbers plain lines, colours and cursor moves taken out', () => {
    const o = new OutputLines();
    expect(o.feed('one\r\n\x1b[31mtwo\x1b[0m\r\n\r\nfour\x1b[K\n')).toEqual([
      { kind: 'output', line: 0, text: 'one' },
      { kind: 'output', line: 1, text: 'two' },
      { kind: 'output', line: 3, text: 'four' },
    ]);
  });

  it('reads sequences split anywhere across chunks', () => {
    const o = new OutputLines(10);
    const all = ['al', 'pha\x1b', '[3', '2mbe', 'ta\x1b]0;ti', 'tle\x07 gamma\r', '\n'].flatMap((c) => o.feed(c));
    expect(all).toEqual([{ kind: 'output', line: 10, text: 'alphabeta gamma' }]);
  });

  it('starts a line over at a lone carriage return, takes back a backspace', () => {
    const o = new OutputLines();
    expect(o.feed('progress 10%\rprogress 100%\nab\bc\n')).toEqual([
      { kind: 'output', line: 0, text: 'progress 100%' },
      { kind: 'output', line: 1, text: 'ac' },
    ]);
  });

  it('reads a marked command, its line and exit status (BEL and ST endings)', () => {
    const o = new OutputLines();
    const out = o.feed('\x1b]133;A\x07$ \x1b]133;B\x07ls /nope\r\n\x1b]133;C\x1b\\ls: cannot access\r\n\x1b]133;D;2\x07\x1b]133;A\x07$ ');
    expect(out).toEqual([
      { kind: 'output', line: 0, text: '$ ls /nope' },
      { kind: 'output', line: 1, text: 'ls: cannot access' },
      { kind: 'command', line: 1, text: 'ls /nope', exitCode: 2 },
    ]);
    expect(o.pending).toBe('$');
  });

  it('skips DCS and APC strings whole', () => {
    const o = new OutputLines();
    expect(o.feed('a\x1bPq#0;2;0;0;0\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\n')).toEqual([{ kind: 'output', line: 0, text: 'abc' }]);
  });
});

describe('OutputLines.skip', () => {
  it('counts the lines of output it does not read, so the next ones keep their numbers', () => {
    const o = new OutputLines();
    expect(o.feed('one\npart')).toEqual([{ kind: 'output', line: 0, text: 'one' }]);
    o.skip('ial\nx\ny\nhalf\x1b[3');
    expect(o.feed('after\n')).toEqual([{ kind: 'output', line: 4, text: 'after' }]);
  });
});
