/**
 * What the headless screen's tests share (main/panes/screen.test.ts, line-encode.test.ts):
 * a seeded random source, a reference terminal that parses each write before it returns,
 * and a terminal's cells written out row by row to compare.
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';

type Term = InstanceType<typeof headless.Terminal>;

/** A small seeded PRNG (mulberry32): each failing stream can be replayed by its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A reference terminal that parses each write before it returns (xterm's own synchronous write). */
export function reference(cols: number, rows: number, scrollback: number): { term: Term; ser: InstanceType<typeof serialize.SerializeAddon>; write(data: string): void } {
  const term = new headless.Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
  const ser = new serialize.SerializeAddon();
  term.loadAddon(ser);
  const core = (term as unknown as { _core: { writeSync(data: string): void } })._core;
  return { term, ser, write: (data) => data && core.writeSync(data) };
}

/**
 * Every row of `term`'s active buffer as a string: a wrapped row starts with '~', each cell
 * is its characters (a wide character's second half too) with its colours and flags; an
 * empty cell is '.' (trailing ones dropped), or with `emptyCells` written like the others
 * (width and background included).
 */
export function cellRows(term: Term, emptyCells = false): string[] {
  const b = term.buffer.active;
  const cell = b.getNullCell();
  const out: string[] = [];
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y)!;
    let row = line.isWrapped ? '~' : '';
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      const chars = cell.getChars();
      if (!emptyCells && !chars && cell.getWidth() !== 0) {
        row += '.';
        continue;
      }
      const flags = [cell.isBold(), cell.isUnderline(), cell.isInverse(), cell.isItalic(), cell.isDim(), ...(emptyCells ? [cell.isBlink(), cell.isInvisible(), cell.isStrikethrough(), cell.isOverline()] : [])];
      row += `${emptyCells ? `${chars || '.'}${cell.getWidth()}` : chars}[${cell.getFgColorMode()}:${cell.getFgColor()}/${cell.getBgColorMode()}:${cell.getBgColor()}/${flags.map(Number).join('')}]`;
    }
    out.push(emptyCells ? row : row.replace(/\.+$/, ''));
  }
  return out;
}
