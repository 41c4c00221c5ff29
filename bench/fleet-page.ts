/**
 * In the bench's window: when each pane's shell prompt is drawn again (after a Ctrl-C to its
 * flood). Shared by the fleet bench and its probe (bench/fleet-probe.ts).
 */
import type { Page } from 'playwright-core';

/**
 * Watches panes `ids` in the page: `window.__prompts` becomes a promise of, for each pane in
 * order, the time (performance.timeOrigin + now(), the system's clock) of the frame after its
 * terminal first parsed a line ending in `$` near the cursor; `window.__onPrompt`, when the
 * page has one, is told each as it comes.
 */
export function watchPrompts(page: Page, ids: string[]): Promise<void> {
  return page.evaluate((panes) => {
    type Term = { onWriteParsed(f: () => void): { dispose(): void }; buffer: { active: { cursorY: number; baseY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined } } };
    const w = window as unknown as { __prompts?: Promise<number[]>; __onPrompt?: (id: string, at: number) => void; __td: { term(id: string): Term } };
    w.__prompts = Promise.all(panes.map((id) => new Promise<number>((resolve) => {
      const term = w.__td.term(id);
      const sub = term.onWriteParsed(() => {
        const b = term.buffer.active;
        const y = b.baseY + b.cursorY;
        const rows = [y - 2, y - 1, y].map((r) => (r >= 0 ? b.getLine(r)?.translateToString(true) ?? '' : '')).join('').trimEnd();
        if (!rows.endsWith('$')) return;
        sub.dispose();
        requestAnimationFrame(() => {
          const at = performance.timeOrigin + performance.now();
          w.__onPrompt?.(id, at);
          resolve(at);
        });
      });
    })));
  }, ids);
}

/** The times `watchPrompts` gave, once every pane's prompt is drawn. */
export function promptsDrawn(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { __prompts: Promise<number[]> }).__prompts);
}
