import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { linesHolding } from './lines-holding.ts';

const written = (term: Terminal, data: string): Promise<void> => new Promise((resolve) => term.write(data, resolve));

describe('linesHolding', () => {
  it('finds the lines that hold a text, a wrapped line once (the text across its rows too), counted up from the cursor\'s line', async () => {
    const term = new Terminal({ cols: 12, rows: 4, scrollback: 100, allowProposedApi: true });
    // rows: 0 "aa", 1 "zqx one", 2-3 "xxxxxxxxxxzq|x one" (one line, wrapped), 4 "日本zqx one", 5 "b", 6 the cursor's "$ "
    await written(term, 'aa\r\nzqx one\r\nxxxxxxxxxxzqx one\r\n日本zqx one\r\nb\r\n$ ');
    expect(linesHolding(term as never, 'zqx one')).toEqual([
      { first: 4, last: 4, above: 2 },
      { first: 2, last: 3, above: 3 },
      { first: 1, last: 1, above: 4 },
    ]);
    expect(linesHolding(term as never, 'nowhere')).toEqual([]);
    // A line's trailing spaces inside a wrap are its own ("a" then 11 spaces, wrapped, then "b").
    await written(term, '\r\na           b\r\n');
    expect(linesHolding(term as never, 'a           b')).toEqual([{ first: 7, last: 8, above: 1 }]);
    term.dispose();
  });
});
