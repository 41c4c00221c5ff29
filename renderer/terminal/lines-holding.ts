import type { Terminal } from '@xterm/xterm';

/**
 * The lines of the terminal's buffer (a wrapped line's rows joined) that hold `text`, from the
 * cursor's line up: each line's first and last row, and how many lines above the cursor's it is.
 */
export function linesHolding(term: { buffer: Pick<Terminal['buffer'], 'active'> }, text: string): Array<{ first: number; last: number; above: number }> {
  const buf = term.buffer.active;
  const out: Array<{ first: number; last: number; above: number }> = [];
  let last = Math.min(buf.length - 1, buf.baseY + buf.cursorY);
  for (let above = 0; last >= 0; above++) {
    let first = last;
    while (first > 0 && buf.getLine(first)?.isWrapped) first--;
    let line = '';
    for (let y = first; y <= last; y++) line += buf.getLine(y)?.translateToString(y === last) ?? '';
    if (line.includes(text)) out.push({ first, last, above });
    last = first - 1;
  }
  return out;
}
