/**
 * A screen's rows as runs of cells (what a window's first paint draws), read from a real
 * @xterm/headless fed real escape sequences.
 */
import { describe, expect, it } from 'vitest';
import headless from '@xterm/headless';
import { CELL } from '../../common/first-paint.ts';
import { screenCells } from './screen-cells.ts';

function fed(data: string, cols = 40, rows = 6): Promise<InstanceType<typeof headless.Terminal>> {
  const term = new headless.Terminal({ cols, rows, scrollback: 100, allowProposedApi: true, logLevel: 'off' });
  return new Promise((resolve) => term.write(data, () => resolve(term)));
}

describe('screenCells', () => {
  it('gives each row as runs that look alike: palette and RGB colours, attributes, defaults as null', async () => {
    const term = await fed('plain \x1b[31mred\x1b[0m \x1b[1;42mbold on green\x1b[0m\r\n\x1b[38;2;255;128;0mrgb\x1b[0m \x1b[38;5;208m208\x1b[0m \x1b[7minv\x1b[0m \x1b[3;4;9mall\x1b[0m \x1b[2mdim\x1b[8mhid\x1b[0m');
    const s = screenCells(term);
    expect(s).toMatchObject({ cols: 40, rows: 6 });
    expect(s.lines[0]).toEqual([
      { text: 'plain ', fg: null, bg: null, flags: 0 },
      { text: 'red', fg: 1, bg: null, flags: 0 },
      { text: ' ', fg: null, bg: null, flags: 0 },
      { text: 'bold on green', fg: null, bg: 2, flags: CELL.bold },
    ]);
    expect(s.lines[1]).toEqual([
      { text: 'rgb', fg: '#ff8000', bg: null, flags: 0 },
      { text: ' ', fg: null, bg: null, flags: 0 },
      { text: '208', fg: 208, bg: null, flags: 0 },
      { text: ' ', fg: null, bg: null, flags: 0 },
      { text: 'inv', fg: null, bg: null, flags: CELL.inverse },
      { text: ' ', fg: null, bg: null, flags: 0 },
      { text: 'all', fg: null, bg: null, flags: CELL.italic | CELL.underline | CELL.strike },
      { text: ' ', fg: null, bg: null, flags: 0 },
      { text: 'dim', fg: null, bg: null, flags: CELL.dim },
      { text: 'hid', fg: null, bg: null, flags: CELL.dim | CELL.invisible },
    ]);
    expect(s.lines.slice(2)).toEqual([[], [], [], []]);
    term.dispose();
  });

  it('keeps blank cells that show a background, drops trailing blank ones, and gives a wide character once', async () => {
    const term = await fed('a   \r\n\x1b[44m  \x1b[0m   \r\n界x');
    const s = screenCells(term);
    expect(s.lines[0]).toEqual([{ text: 'a', fg: null, bg: null, flags: 0 }]);
    expect(s.lines[1]).toEqual([{ text: '  ', fg: null, bg: 4, flags: 0 }]);
    expect(s.lines[2]).toEqual([{ text: '界x', fg: null, bg: null, flags: 0 }]);
    term.dispose();
  });

  it('shows the bottom of the buffer (what a window drawing it shows), the cursor where it is, hidden when the program hid it', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\r\n');
    const term = await fed(`${lines}\r\n$ ab\x1b[2D`, 20, 4);
    const s = screenCells(term);
    expect(s.lines.map((r) => r.map((x) => x.text).join(''))).toEqual(['line 7', 'line 8', 'line 9', '$ ab']);
    expect(s.cursor).toEqual({ x: 2, y: 3, visible: true });
    expect(s.appCursor).toBe(false);
    await new Promise<void>((r) => term.write('\x1b[?25l\x1b[?1h', () => r()));
    expect(screenCells(term).cursor.visible).toBe(false);
    // DECCKM: a program that asked for application cursor keys (keys typed on a first paint follow it).
    expect(screenCells(term).appCursor).toBe(true);
    term.dispose();
  });

  it('reads the alternate screen while a full-screen program shows it', async () => {
    const term = await fed('shell\r\n\x1b[?1049h\x1b[Htui\x1b[2;3H\x1b[35mX', 10, 3);
    const s = screenCells(term);
    expect(s.lines).toEqual([[{ text: 'tui', fg: null, bg: null, flags: 0 }], [{ text: '  ', fg: null, bg: null, flags: 0 }, { text: 'X', fg: 5, bg: null, flags: 0 }], []]);
    term.dispose();
  });
});
