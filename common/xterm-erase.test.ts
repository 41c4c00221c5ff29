/**
 * xterm's erase above (CSI 1 J) from the last column unwraps a row of the history counted from
 * the buffer's top, and throws where there is none; mendEraseAbove erases the same cells and
 * unwraps the screen's row below the cursor (issue 38: seed 2090 of the history's search).
 */
import { describe, expect, it } from 'vitest';
import headless from '@xterm/headless';
import { Terminal } from '@xterm/xterm';
import { mendEraseAbove } from './xterm-erase.ts';

type Term = InstanceType<typeof headless.Terminal> | Terminal;

function rows(t: Term): string[] {
  const b = t.buffer.active;
  return Array.from({ length: b.length }, (_, y) => `${b.getLine(y)!.isWrapped ? '~' : ''}${b.getLine(y)!.translateToString(true)}`);
}

function run(make: () => Term, mend: boolean, data: string): string[] {
  const t = make();
  if (mend) mendEraseAbove(t);
  try {
    (t as unknown as { _core: { writeSync(d: string): void } })._core.writeSync(data);
    return rows(t);
  } finally {
    t.dispose();
  }
}

// Six rows of history, the second a line wrapped onto the third; on a screen of 3 rows, a line
// wrapped from the second row onto the third, then the cursor in the second row's last column, erasing above.
const data = `a\r\nbbbbb${'c'.repeat(3)}\r\nd\r\ne\r\nf\r\ng\r\n${'h'.repeat(5)}ii\x1b[2;5H\x1b[1J`;

describe.each([
  ['the service\'s (@xterm/headless)', () => new headless.Terminal({ cols: 5, rows: 3, scrollback: 100, allowProposedApi: true, logLevel: 'off' }) as Term],
  ['the page\'s (@xterm/xterm)', () => new Terminal({ cols: 5, rows: 3, scrollback: 100, allowProposedApi: true, logLevel: 'off' }) as Term],
])('mendEraseAbove, in %s xterm', (_what, make) => {
  it('unwraps the screen\'s row below the cursor, not a row of the history', () => {
    const bare = run(make, false, data);
    // xterm by itself: the history's third row (index 2: the cursor's screen row plus one, 'ccc' continuing 'bbbbb') unwrapped, the screen's 'ii' left wrapped.
    expect(bare.slice(1, 3)).toEqual(['bbbbb', 'ccc']);
    expect(bare.slice(-3)).toEqual(['', '', '~ii']);
    const mended = run(make, true, data);
    expect(mended.slice(1, 3)).toEqual(['bbbbb', '~ccc']);
    expect(mended.slice(-3)).toEqual(['', '', 'ii']);
    // The rest as xterm left it.
    expect(mended.filter((r, i) => i !== 2 && i !== mended.length - 1)).toEqual(bare.filter((r, i) => i !== 2 && i !== bare.length - 1));
  });

  it('erases from the bottom right cell of a screen with no history where xterm by itself throws', () => {
    const full = `${'x'.repeat(5)}\r\n${'y'.repeat(5)}\r\n${'z'.repeat(5)}\x1b[1J`;
    expect(() => run(make, false, full)).toThrow();
    expect(run(make, true, full)).toEqual(['', '', '']);
  });
});
