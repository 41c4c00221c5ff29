/**
 * The page's xterm (@xterm/xterm 6.0.0, as the service's headless one) throws from its parser
 * after a resize to fewer rows, the alternate screen used, and another resize with a scroll
 * region: resizeKeepingAlt keeps the alternate buffer to the screen's rows, and the same bytes
 * are written (main/panes/screen.test.ts has the headless screen's case).
 */
import { describe, expect, it } from 'vitest';
import { Terminal } from '@xterm/xterm';
import { resizeKeepingAlt } from './xterm-resize.ts';

const first = `\x1b[?1049h${'x\r\n'.repeat(10)}\x1b[H`;
const then = '\x1b[2;4r\x1b7\x1b[2J!\r\nA\r\nX\r\n\r\nend';

function written(resize: (t: Terminal, cols: number, rows: number) => void): { alt: number; screen: string[] } {
  const t = new Terminal({ cols: 20, rows: 8, scrollback: 30, allowProposedApi: true, logLevel: 'off' });
  // (xterm's synchronous write, so that a throw reaches the test rather than a timer of its queue.)
  const write = (d: string) => (t as unknown as { _core: { writeSync(d: string): void } })._core.writeSync(d);
  try {
    resize(t, 12, 2);
    write(first);
    const alt = t.buffer.alternate.length;
    resize(t, 15, 4);
    write(then);
    return { alt, screen: Array.from({ length: 4 }, (_, y) => t.buffer.active.getLine(t.buffer.active.baseY + y)!.translateToString(true)) };
  } finally {
    t.dispose();
  }
}

describe('resizeKeepingAlt, in the page\'s xterm', () => {
  it('keeps the alternate screen to the screen\'s rows, where xterm by itself scrolls rows into it and then throws', () => {
    expect(() => written((t, cols, rows) => t.resize(cols, rows))).toThrow('start argument out of range');
    expect(written(resizeKeepingAlt)).toEqual({ alt: 2, screen: ['!', 'X', '', 'end'] });
  });
});
