/**
 * Three panes filled with numbered lines, each in a colour, for the tests of what a window
 * attaching later draws (issue 38, item 4): e2e/attach-later.e2e.ts and e2e/attach-resized.e2e.ts.
 * Pane k's line i is `pane-<k> line <iiii> <tail>`, printed by printf in colour 31 + i % 6.
 */
import { expect } from 'vitest';
import type { TdPage } from './harness.ts';

/** Pane k's line i, its `tail` being `'abcdefghij'` `repeat` times. */
export const lineOf = (k: number, i: number, repeat: number): string => `pane-${k} line ${String(i).padStart(4, '0')} ${'abcdefghij'.repeat(repeat)}`;

/** A line as the page holds it: wrapped rows joined, its first cell's palette colour (-1: default), the rows it takes. */
export interface PaneLine { text: string; fg: number; rows: number }

/** Split the window's pane into three (right, then the second down) and fill pane k with `count` lines of lineOf(k, i, repeat); returns the panes' ids, each at its prompt again. */
export async function fillThreePanes(a: TdPage, count: number, repeat: number): Promise<string[]> {
  const [first] = await a.paneIds();
  await a.header(first!).getByRole('button', { name: 'Split right' }).click();
  await a.waitFor(async () => (await a.paneIds()).length === 2, 'two panes');
  const [, second] = await a.paneIds();
  await a.header(second!).getByRole('button', { name: 'Split down' }).click();
  await a.waitFor(async () => (await a.paneIds()).length === 3, 'three panes');
  const ids = await a.paneIds();
  for (const id of ids) await a.waitForPrompt(id);
  for (const [k, id] of ids.entries()) {
    await a.typeLine(id, `for i in $(seq 1 ${count}); do printf '\\033[3%dm%s\\033[0m\\n' $((1 + i % 6)) "pane-${k} line $(printf %04d $i) ${'abcdefghij'.repeat(repeat)}"; done; echo done-$((${k} + 1))`);
  }
  for (const [k, id] of ids.entries()) await a.waitForText(id, new RegExp(`^done-${k + 1}$`, 'm'), 60_000);
  for (const id of ids) await a.waitForPrompt(id);
  return ids;
}

type Cell = { getFgColor(): number; isFgPalette(): boolean };
type Line = { isWrapped: boolean; translateToString(t?: boolean): string; getCell(x: number): Cell | undefined };
type Td = { term(id: string): { buffer: { active: { length: number; getLine(y: number): Line | undefined } } } | null };

/** The pane's lines in the page's terminal, wrapped rows joined. */
export function paneLines(w: TdPage, paneId: string): Promise<PaneLine[]> {
  return w.page.evaluate((id) => {
    const b = (window as unknown as { __td: Td }).__td.term(id)!.buffer.active;
    const out: PaneLine[] = [];
    for (let y = 0; y < b.length; y++) {
      const line = b.getLine(y);
      const text = line?.translateToString(true) ?? '';
      if (line?.isWrapped && out.length) {
        const last = out[out.length - 1]!;
        last.text += text;
        last.rows++;
        continue;
      }
      const cell = line?.getCell(0);
      out.push({ text, fg: cell && cell.isFgPalette() ? cell.getFgColor() : -1, rows: 1 });
    }
    return out;
  }, paneId);
}

/**
 * Pane k's lines in `got` must be exactly its program's, from `from` to `count`, each in its
 * colour and, given `cols`, wrapped at that width.
 */
export function expectPaneLines(got: PaneLine[], opts: { k: number; from: number; count: number; repeat: number; cols?: number }, what: string): void {
  const { k, from, count, repeat, cols } = opts;
  const at = got.findIndex((l) => l.text === lineOf(k, from, repeat));
  expect(at, `${what}: pane-${k} line ${from} in the buffer`).toBeGreaterThanOrEqual(0);
  for (let i = from; i <= count; i++) {
    const l = got[at + i - from]!;
    expect(l.text, `${what}: the line after pane-${k} line ${i - 1}`).toBe(lineOf(k, i, repeat));
    expect(l.fg, `${what}: the colour of pane-${k} line ${i}`).toBe(1 + (i % 6));
    if (cols !== undefined) expect(l.rows, `${what}: the rows pane-${k} line ${i} wraps onto at ${cols} columns`).toBe(Math.ceil(lineOf(k, i, repeat).length / cols));
  }
}
