/**
 * A flood's history in the page (issue 38): after a 32 MiB `cat` of numbered lines, the
 * window's xterm, scrolled to the top with Shift+PageUp (which fetches the whole history when
 * the redraws carried only part of it), holds exactly the scrollback setting's 10,000 lines
 * above its screen, the file's last ones, none missing and none twice: every round.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, type Serve, type TdPage } from './harness.ts';
import { windowForFile } from './fixture.ts';
import type { Browser } from 'playwright-core';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let dir: string;

const SCROLLBACK = 10_000;
/** ~70 characters a line, 32 MiB in all. */
const LINE_CHARS = 70;
const LINES = Math.ceil((32 * 1024 * 1024) / (LINE_CHARS + 1));
const lineOf = (i: number): string => `flood line ${String(i).padStart(8, '0')} ${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2)}`.slice(0, LINE_CHARS);

windowForFile((w) => ({ serve, browser, win } = w));

beforeAll(() => {
  dir = tempDir('flood');
  fs.writeFileSync(path.join(dir, 'lines.txt'), Array.from({ length: LINES }, (_, i) => lineOf(i)).join('\n') + '\n');
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

type Buf = { length: number; baseY: number; viewportY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined };
type Td = { term(id: string): { rows: number; buffer: { active: Buf } }; stats(id: string): { partial: boolean; syncs: number; redraws: number } };
const redraws = (w: TdPage, paneId: string) => w.page.evaluate((p) => (window as unknown as { __td: Td }).__td.stats(p).redraws, paneId);

/** The page's buffer for the pane: every line, and the screen's height. */
function buffer(w: TdPage, paneId: string): Promise<{ lines: string[]; rows: number; viewportY: number }> {
  return w.page.evaluate((id) => {
    const t = (window as unknown as { __td: Td }).__td.term(id);
    const b = t.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
    return { lines, rows: t.rows, viewportY: b.viewportY };
  }, paneId);
}

describe('a flood\'s history in the page', () => {
  it('after a 32 MiB cat holds exactly the last 10,000 lines above the screen, three rounds in a row', async () => {
    const [id] = await win.paneIds();
    await win.waitForPrompt(id!);
    const file = path.join(dir, 'lines.txt');
    for (let round = 1; round <= 3; round++) {
      const marker = `flood-done-${round}`;
      const before = await redraws(win, id!);
      // $((…)) keeps the marker out of the echoed command line.
      await win.typeLine(id!, `cat ${file}; echo flood-done-$((${round}))`);
      await win.waitForText(id!, new RegExp(`^${marker}$`, 'm'), 180_000, 5);
      await win.waitForPrompt(id!);
      // The core sends the whole history once the flood has been quiet a moment, before anyone scrolls;
      // a loaded machine takes a while to deliver it. (Not there: the check below says how short it is.)
      await win.waitFor(async () => {
        const b = await buffer(win, id!);
        return b.lines.length === SCROLLBACK + b.rows;
      }, `round ${round}: the whole history in the page`, 30_000).catch(() => undefined);
      // Scroll to the top as a person does, a page at a time, until the view has stayed at line 0 for three presses; read it there.
      await win.focusKeyboard(id!);
      let steady = 0;
      while (steady < 3) {
        await win.page.keyboard.press('Shift+PageUp');
        const top = await win.page.evaluate((p) => (window as unknown as { __td: Td }).__td.term(p).buffer.active.viewportY, id!);
        steady = top === 0 ? steady + 1 : 0;
      }
      const { lines, rows } = await buffer(win, id!);
      // The page was left behind the flood and redrew from the core's screen (the way that left a short history).
      expect(await redraws(win, id!), `round ${round}: redraws`).toBeGreaterThan(before);
      const done = lines.lastIndexOf(marker);
      expect(done, `round ${round}: the marker in the buffer`).toBeGreaterThan(0);
      // Full: the scrollback setting's lines above a screen.
      expect(lines.length, `round ${round}: lines in the buffer`).toBe(SCROLLBACK + rows);
      // Line 0 is the file's line it must be, and every line after it follows, up to the file's last.
      const first = LINES - done;
      expect(lines[0], `round ${round}: line 0`).toBe(lineOf(first));
      const wrong = lines.slice(0, done).findIndex((l, i) => l !== lineOf(first + i));
      expect(wrong, `round ${round}: the first line out of order (${lines[wrong]})`).toBe(-1);
      // Back to the bottom for the next round.
      await win.page.evaluate((p) => (window as unknown as { __td: { term(id: string): { scrollToBottom(): void } } }).__td.term(p).scrollToBottom(), id!);
    }
  }, 900_000);
});
