/**
 * The window's first paint answering keys before any terminal exists (issue 38, item 4;
 * renderer/first-paint/live.ts): the main bundle (React, xterm) is held back, so the page is
 * only index.html with the door's first paint and the inline early script. A line typed on it
 * reaches the focused pane's shell at once, through the early socket, and its echo and its
 * output are drawn on the first paint (the core's `pane.rows`); a click on the other pane's
 * part focuses that pane and keys go there. Once the bundle comes, each pane's terminal takes
 * over with the same rows, and nothing typed is typed twice. In both themes, with screenshots
 * of the first paint answering. Timing is measured in `npm run bench -- tmux`, never here.
 * When the first paint goes before the focused pane's terminal has drawn (its snapshot slow or
 * failed), that terminal takes the keyboard then: keys typed after reach its shell.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, countLines as count, openPaneFixture, TdPage, type PaneFixture } from './harness.ts';

let fx: PaneFixture;

beforeAll(async () => {
  fx = await openPaneFixture({ theme: 'dark' });
});

afterAll(async () => {
  await fx?.close();
});

/** A pane's part of the first paint: its rows as text, whether it shows focused, whether it went. */
interface Part { rows: string[]; focused: boolean; gone: boolean }

describe('the first paint, live', () => {
  it('answers keys typed on it before the terminal exists, draws their echo, and gives way to the terminal with the same rows, nothing typed twice', async () => {
    const [a] = await fx.win.paneIds();
    await fx.win.waitForPrompt(a!);
    await fx.win.header(a!).getByRole('button', { name: 'Split right' }).click();
    await fx.win.waitFor(async () => (await fx.win.paneIds()).length === 2, 'two panes');
    const [, b] = await fx.win.paneIds();
    await fx.win.waitForPrompt(b!);

    for (const theme of ['light', 'dark'] as const) {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const ctx = await fx.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme, deviceScaleFactor: 1 });
      try {
        expect((await ctx.request.get(fx.serve.url, { maxRedirects: 0 })).status()).toBe(302);
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        // The main bundle waits for the test; the first paint and the early script do not.
        await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
          await gate;
          await route.continue();
        });
        // When each part goes: its rows then, and the rows its terminal shows then.
        await page.addInitScript(() => {
          const w = window as unknown as { __handover: Record<string, { fp: string[]; term: string[] }> };
          w.__handover = {};
          const rows = (el: Element | null | undefined, sel: string) => [...(el?.querySelectorAll(sel) ?? [])].map((d) => (d.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd());
          const went = (part: HTMLElement) => {
            const id = part.dataset?.firstPaintPane;
            if (!id || id in w.__handover) return;
            w.__handover[id] = { fp: rows(part, '.first-paint-rows > div'), term: rows(document.querySelector(`.pane[data-pane-id="${id}"]`), '.xterm-rows > div') };
          };
          // A part goes on its own (hidden), or with the whole first paint (removed).
          new MutationObserver((records) => {
            for (const r of records) {
              if (r.type === 'attributes' && (r.target as HTMLElement).classList.contains('first-paint-gone')) went(r.target as HTMLElement);
              for (const n of r.removedNodes) if ((n as HTMLElement).id === 'td-first-paint') (n as HTMLElement).querySelectorAll<HTMLElement>('[data-first-paint-pane]').forEach(went);
            }
          }).observe(document, { attributes: true, attributeFilter: ['class'], childList: true, subtree: true });
        });
        // The theme asked of the door and the window alike (a context's first request may go without its hint).
        await page.goto(`${fx.serve.origin}/?test=1&renderer=dom&theme=${theme}`, { waitUntil: 'commit' });
        await page.waitForFunction(() => !!document.getElementById('td-first-paint') && performance.getEntriesByName('td:early').length > 0);
        const part = (id: string): Promise<Part | null> => page.evaluate((pid) => {
          const el = [...document.querySelectorAll<HTMLElement>('[data-first-paint-pane]')].find((e) => e.dataset.firstPaintPane === pid);
          return el ? { rows: [...el.querySelectorAll('.first-paint-rows > div')].map((d) => (d.textContent ?? '').trimEnd()), focused: el.dataset.focused === 'true', gone: el.classList.contains('first-paint-gone') } : null;
        }, id);
        const waitRows = (id: string, re: RegExp, what: string) => fx.win.waitFor(async () => (await part(id))?.rows.some((r) => re.test(r)) ?? false, `${what} on the first paint of ${id} (${theme})`);
        const focusedFirst = (await part(a!))!.focused ? a! : b!;
        const other = focusedFirst === a ? b! : a!;
        expect((await part(other))!.focused).toBe(false);

        // Typed on the focused pane's first paint: its echo comes back onto it, the terminal not there.
        await page.keyboard.type(`echo live-${theme}-$((6*7))`);
        await waitRows(focusedFirst, new RegExp(`td\\$ echo live-${theme}-\\$\\(\\(6\\*7\\)\\)$`), 'the typed line\'s echo');
        await page.keyboard.press('Enter');
        await waitRows(focusedFirst, new RegExp(`^live-${theme}-42$`), 'its output');
        // Output of the pane not focused (typed in another window): its part is not drawn again
        // (its terminal shows it once it takes over), so a window's first resize, which makes
        // every shell draw its prompt again, costs no markup and no layout per pane.
        // (Each mark names its pane: the focused pane's own prompt drawn again meanwhile is no matter here.)
        const marks = () => page.evaluate((id) => {
          const of = (name: string) => performance.getEntriesByName(name).filter((e) => (e as PerformanceMark).detail === id).length;
          return { output: of('td:first-paint-output'), asked: of('td:first-paint-rows-asked') };
        }, other);
        const before = await marks();
        await fx.win.typeLine(other, `echo unseen-${theme}-$((5*5))`);
        await fx.win.waitForText(other, new RegExp(`^unseen-${theme}-25$`, 'm'));
        await fx.win.waitFor(async () => (await marks()).output > before.output, `the first paint hearing ${other}'s output (${theme})`);
        expect((await marks()).asked, 'rows asked for a pane not focused').toBe(before.asked);
        expect((await part(other))!.rows.some((r) => r.includes('unseen-'))).toBe(false);
        // A click on the other pane's part focuses it and draws what it missed; keys go there.
        await page.locator(`[data-first-paint-pane="${other}"] .first-paint-rows`).click();
        expect((await part(other))!.focused).toBe(true);
        await waitRows(other, new RegExp(`^unseen-${theme}-25$`), 'the output it missed');
        expect((await part(focusedFirst))!.focused).toBe(false);
        await page.keyboard.type(`echo other-${theme}-$((3*3))`);
        await page.keyboard.press('Enter');
        await waitRows(other, new RegExp(`^other-${theme}-9$`), 'the other pane\'s output');
        expect(await page.evaluate(() => document.querySelectorAll('.xterm').length)).toBe(0);
        await page.screenshot({ path: path.join(ARTIFACTS, `first-paint-live-${theme}.png`) });
        // Each reached its shell once.
        await fx.win.waitForText(focusedFirst, new RegExp(`^live-${theme}-42$`, 'm'));
        await fx.win.waitForText(other, new RegExp(`^other-${theme}-9$`, 'm'));

        // The bundle comes: each terminal takes over, showing what its part showed.
        release();
        const w = new TdPage(page, ctx, errors);
        await w.drawn();
        const handover = await page.evaluate(() => (window as unknown as { __handover: Record<string, { fp: string[]; term: string[] }> }).__handover);
        for (const id of [focusedFirst, other]) {
          const h = handover[id]!;
          expect(h, `pane ${id}'s part went`).toBeDefined();
          const last = (rows: string[]) => rows.filter((r) => r.length > 0).slice(-3);
          expect(last(h.term), `pane ${id} at hand-over: ${JSON.stringify(h)}`).toEqual(last(h.fp));
        }
        expect(await w.focused()).toBe(other);
        await w.waitForText(focusedFirst, new RegExp(`^live-${theme}-42$`, 'm'));
        await w.waitForText(other, new RegExp(`^other-${theme}-9$`, 'm'));
        // The terminal types on by itself; nothing typed early is typed again.
        await w.typeLine(other, `echo after-${theme}-$((2*2))`);
        await fx.win.waitForText(other, new RegExp(`^after-${theme}-4$`, 'm'));
        for (const [id, re] of [[focusedFirst, new RegExp(`echo live-${theme}-`)], [focusedFirst, new RegExp(`^live-${theme}-42$`)], [other, new RegExp(`echo other-${theme}-`)], [other, new RegExp(`^other-${theme}-9$`)]] as const) {
          expect(count(await fx.win.text(id), re), `${re} in ${id}`).toBe(1);
          expect(count(await w.text(id), re), `${re} in ${id}, the window that typed it`).toBe(1);
        }
        expect(errors).toEqual([]);
      } finally {
        release();
        await ctx.close();
      }
    }
  });

  it("gives the focused pane's terminal the keyboard when the first paint goes before its snapshot came: keys typed then reach its shell", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ctx = await fx.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark', deviceScaleFactor: 1 });
    try {
      expect((await ctx.request.get(fx.serve.url, { maxRedirects: 0 })).status()).toBe(302);
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      // Every answer to a `pane.snapshot` ask waits for the test (a loaded machine's slow snapshot);
      // every other frame, both ways, goes as it comes.
      await page.routeWebSocket(/\/ws(\?.*)?$/, (ws) => {
        const server = ws.connectToServer();
        const snapshots = new Set<string>();
        ws.onMessage((m) => {
          if (typeof m === 'string' && m.includes('"pane.snapshot"')) {
            const f = JSON.parse(m) as { t?: string; id?: number; name?: string };
            if (f.t === 'req' && f.name === 'pane.snapshot') snapshots.add(String(f.id));
          }
          server.send(m);
        });
        server.onMessage((m) => {
          const id = typeof m === 'string' ? /^\{"t":"res","id":(\d+),/.exec(m.slice(0, 40))?.[1] : undefined;
          if (id && snapshots.has(id)) void gate.then(() => ws.send(m));
          else ws.send(m);
        });
      });
      await page.goto(`${fx.serve.origin}/?test=1&renderer=dom&theme=dark`);
      const w = new TdPage(page, ctx, errors);
      // No terminal draws: the first paint goes after RETIRE_AFTER_MS all the same.
      await w.drawn();
      const focused = await page.evaluate(() => (window as unknown as { __td: { store: { getState(): { focused: string | null } } } }).__td.store.getState().focused);
      expect(focused).toBeTruthy();
      expect(await page.evaluate((id) => (window as unknown as { __td: { drawn(id: string): boolean } }).__td.drawn(id), focused!)).toBe(false);
      // The keyboard is in the focused pane's terminal, not left on the page's body.
      expect(await page.evaluate(() => document.activeElement?.closest('.pane[data-pane-id]')?.getAttribute('data-pane-id') ?? document.activeElement?.tagName)).toBe(focused);
      await page.keyboard.type('echo slow-snapshot-$((5*5))');
      await page.keyboard.press('Enter');
      await fx.win.waitForText(focused!, /^slow-snapshot-25$/m);
      // The snapshots come: the terminal draws what its shell shows, the line typed once.
      release();
      await w.waitForText(focused!, /^slow-snapshot-25$/m);
      expect(count(await fx.win.text(focused!), /^slow-snapshot-25$/m)).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      release();
      await ctx.close();
    }
  });
});
