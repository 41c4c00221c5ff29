/**
 * Search everything in the window (issue 36): Ctrl+Shift+F opens the palette; results come
 * as you type, grouped by pane, the match marked; Enter on a line of a pane's output scrolls
 * its terminal to the line and marks it (also once the pane's shell has ended); Enter on a
 * decision opens the pane's bench on its card. Screenshots in dark and light.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { connectService, stopService, type ServiceConnection } from '../main/service/client.ts';
import { axeViolations, dropSurface, launchBrowser, openWindow, paneFolder, ROOT, startServe, type Serve, type TdPage } from './harness.ts';
import fs from 'node:fs';

let serve: Serve;
let browser: Browser;
let dark: TdPage;
let light: TdPage;
let conn: ServiceConnection;
let shellId: string;
let catId: string;

interface Term { rows: number; getSelection(): string; buffer: { active: { viewportY: number; baseY: number; length: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } } }

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  dark = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1200, height: 760 } });
  [shellId] = (await dark.paneIds()) as [string];
  await dark.waitForPrompt(shellId);
  conn = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, TD_SOCKET: path.join(serve.stateDir, 'app.sock') }, client: 'cli', start: false });
}, 120_000);

afterAll(async () => {
  conn?.close();
  await browser?.close();
  await serve?.close();
});

/** Where the pane's view is, and which buffer line holds `text` (the last one that does). */
function view(w: TdPage, paneId: string, text: string): Promise<{ top: number; rows: number; line: number; selection: string }> {
  return w.page.evaluate(([id, t]) => {
    const term = (window as unknown as { __td: { term(id: string): Term } }).__td.term(id!);
    const b = term.buffer.active;
    let line = -1;
    for (let y = b.length - 1; y >= 0; y--) if (b.getLine(y)?.translateToString(true) === t) { line = y; break; }
    return { top: b.viewportY, rows: term.rows, line, selection: term.getSelection() };
  }, [paneId, text] as const);
}

async function openPalette(w: TdPage, query: string): Promise<void> {
  await w.focusTerminal(shellId);
  await w.page.keyboard.press('Control+Shift+F');
  const input = w.page.getByRole('searchbox', { name: 'Search everything' });
  await input.waitFor();
  await input.fill(query);
}

describe('the Search everything palette', () => {
  it('finds a line as you type, grouped by pane with the match marked, and Enter scrolls the terminal to it and marks it', async () => {
    // printf prints the word whole; the typed line has it in two halves. Then 80 lines push it out of view.
    await dark.typeLine(shellId, "printf '%s%s\\n' zqx palette42; seq 1 80; echo ANTHROPIC_API_KEY=sk-ant-api03-Qw7ErT9yUiOp3AsDfGh");
    await dark.waitForText(shellId, /^80$/m);
    const before = await view(dark, shellId, 'zqxpalette42');
    expect(before.line).toBeGreaterThanOrEqual(0);
    expect(before.line).toBeLessThan(before.top);

    await openPalette(dark, 'zqxpale');
    const hit = dark.page.locator('.td-search-hit', { hasText: 'zqxpalette42' });
    await hit.first().waitFor();
    expect(await dark.page.locator('.td-search-hit mark').first().textContent()).toBe('zqxpalette42');
    expect(await dark.page.locator('.td-search-group-head').first().textContent()).toContain(shellId);
    await dark.screenshot('search-palette-dark');
    // The palette passes an axe-core scan (serious and critical).
    expect(await axeViolations(dark, 'search palette, dark')).toEqual([]);
    // Grouped by day, then by agent: the hit's row names its pane; back by pane.
    const paneName = await dark.page.locator('.td-search-pane').first().textContent();
    const groupBy = dark.page.getByLabel('Group');
    await groupBy.selectOption('day');
    await dark.waitFor(async () => (await dark.page.locator('.td-search-group-head').first().textContent())?.startsWith('Today') ?? false, 'a group for today');
    expect(await hit.first().locator('.td-search-where').textContent()).toBe(paneName);
    await dark.screenshot('search-by-day-dark');
    await groupBy.selectOption('agent');
    await dark.waitFor(async () => (await dark.page.locator('.td-search-group-head').first().textContent())?.startsWith('No agent') ?? false, 'a group for no agent');
    await groupBy.selectOption('pane');
    await dark.waitFor(async () => (await dark.page.locator('.td-search-group-head').first().textContent())?.includes(shellId) ?? false, 'grouped by pane again');
    await dark.page.getByRole('searchbox', { name: 'Search everything' }).focus();
    await dark.page.keyboard.press('Enter');
    await dark.waitFor(async () => (await dark.page.locator('.td-search').count()) === 0, 'the palette to close');
    await dark.waitFor(async () => {
      const v = await view(dark, shellId, 'zqxpalette42');
      return v.line >= v.top && v.line < v.top + v.rows && v.selection === 'zqxpalette42';
    }, 'the terminal scrolled to the line, the word marked');
    await dark.screenshot('search-jumped-dark');

    // A last word of 2 letters matches whole words only, and the palette says so; a third letter makes it a prefix.
    await openPalette(dark, 'zq');
    await dark.page.locator('.td-search-empty', { hasText: 'fewer than 3 letters matches whole words only' }).waitFor();
    await dark.screenshot('search-short-dark');
    await dark.page.getByRole('searchbox', { name: 'Search everything' }).fill('zqx');
    await dark.page.locator('.td-search-hit', { hasText: 'zqxpalette42' }).first().waitFor();
    expect(await dark.page.locator('.td-search-empty').count()).toBe(0);
    await dark.page.keyboard.press('Escape');
    await dark.waitFor(async () => (await dark.page.locator('.td-search').count()) === 0, 'Escape to close the palette');

    // The key's line is found; the key itself never reaches the index.
    await openPalette(dark, 'ANTHROPIC_API_KEY');
    await dark.page.locator('.td-search-hit', { hasText: 'ANTHROPIC_API_KEY=[redacted]' }).first().waitFor();
    expect(await dark.page.locator('.td-search-results').textContent()).not.toContain('Qw7ErT9yUiOp3AsDfGh');
    await dark.page.keyboard.press('Escape');
    await dark.waitFor(async () => (await dark.page.locator('.td-search').count()) === 0, 'Escape to close the palette');
  }, 120_000);

  it('Enter on one of a line\'s copies marks that copy, not the newest, in a window that holds only the pane\'s last lines', async () => {
    // Three copies of one line (the typed command holds its first word in halves), 300 lines between them, 50 after.
    await dark.typeLine(shellId, "printf '%s%s %s\\n' zqx dup marker; seq 1 300; printf '%s%s %s\\n' zqx dup marker; seq 301 600; printf '%s%s %s\\n' zqx dup marker; seq 601 650");
    await dark.waitForText(shellId, /^650$/m);
    // A window attached now holds the pane's last lines only: the newest copy, not the others.
    const late = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1200, height: 760 } });
    try {
      const copies = (): Promise<{ rows: number[]; selected?: number; selection: string; top: number; height: number }> =>
        late.page.evaluate((id) => {
          const term = (window as unknown as { __td: { term(id: string): Term & { getSelectionPosition(): { start: { y: number } } | undefined } } }).__td.term(id);
          const b = term.buffer.active;
          const rows: number[] = [];
          for (let y = 0; y < b.length; y++) if (b.getLine(y)?.translateToString(true) === 'zqxdup marker') rows.push(y);
          return { rows, selected: term.getSelectionPosition()?.start.y, selection: term.getSelection(), top: b.viewportY, height: term.rows };
        }, shellId);
      await late.waitForText(shellId, /^650$/m);
      expect((await copies()).rows.length).toBe(1);
      for (const [downs, copy] of [[2, 0], [1, 1]] as const) {
        await openPalette(late, 'zqxdup marker');
        const hits = late.page.locator('.td-search-hit', { hasText: 'zqxdup marker' });
        await late.waitFor(async () => (await hits.count()) === 3, 'three hits, one a copy');
        for (let i = 0; i < downs; i++) await late.page.keyboard.press('ArrowDown');
        await late.page.keyboard.press('Enter');
        await late.waitFor(async () => {
          const c = await copies();
          return c.rows.length === 3 && c.selection === 'zqxdup marker' && c.selected === c.rows[copy] && c.selected! >= c.top && c.selected! < c.top + c.height;
        }, `copy ${copy + 1} of 3 (from the oldest) scrolled to and marked`);
      }
      await late.screenshot('search-jumped-copy-dark');
    } finally {
      await late.close();
    }
  }, 120_000);

  it('finds a decision by its comment and Enter opens the card on the pane\'s bench; light theme', async () => {
    const cat = await conn.request('pane.create', { command: ['cat'], splitOf: shellId, direction: 'right' });
    catId = cat.id;
    const folder = await paneFolder(dark, serve, catId);
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'assets/surfaces/decision.json'), 'utf8')) as { id: string };
    dropSurface(folder, doc);
    await dark.waitFor(async () => (await conn.request('surface.list', { paneId: catId })).some((s) => s.id === 'cache-eviction'), 'the decision on the bench');
    expect(await conn.request('surface.act', { paneId: catId, surfaceId: 'cache-eviction', action: 'approve', comment: 'keep LRU, the replay corpus zqxcorpus says so' })).toMatchObject({ ok: true });

    light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1200, height: 760 } });
    await openPalette(light, 'replay');
    await light.page.locator('.td-search-hit', { hasText: 'zqxcorpus' }).first().waitFor();
    await light.page.locator('.td-search-group').nth(0).waitFor();
    await light.screenshot('search-palette-light');
    expect(await axeViolations(light, 'search palette, light')).toEqual([]);
    await light.page.getByRole('searchbox', { name: 'Search everything' }).fill('zqxcorpus');
    // The decision, and the line the action typed into the pane (cat shows it, as the agent would get it).
    const decision = light.page.locator('.td-search-hit', { hasText: 'approve · LRU on "Cache eviction policy"' });
    await decision.first().waitFor();
    expect(await light.page.locator('.td-search-hit', { hasText: '[workbench:' }).count()).toBeGreaterThan(0);
    await decision.first().click();
    const card = light.page.locator(`[data-pane-id="${catId}"] [data-surface-id="cache-eviction"]`);
    await light.waitFor(async () => (await card.count()) === 1 && (await card.isVisible()), 'the card on the bench');
    // Shown from its head: its title inside the shelf's list, not scrolled up under the tabs.
    await light.waitFor(() => card.evaluate((el) => {
      const title = el.querySelector('.tdb-title')!.getBoundingClientRect();
      const list = el.closest('.tdb-list')!.getBoundingClientRect();
      return title.top >= list.top && title.bottom <= list.bottom;
    }), 'the card\'s title in view');
    await light.screenshot('search-card-light');
    await openPalette(light, 'zq');
    await light.page.locator('.td-search-empty', { hasText: 'type on to find words that begin with it' }).waitFor();
    await light.screenshot('search-short-light');
    await light.page.keyboard.press('Escape');
  }, 120_000);

  it('jumps to the line in a pane whose shell has ended (its screen kept)', async () => {
    await dark.typeLine(shellId, 'exit');
    await dark.waitFor(async () => (await dark.pane(shellId))?.status === 'exited', 'the shell to end');
    await openPalette(dark, 'zqxpalette42');
    await dark.page.locator('.td-search-hit', { hasText: 'zqxpalette42' }).first().waitFor();
    expect(await dark.page.locator('.td-search-group-head').first().textContent()).toContain('ended');
    await dark.page.keyboard.press('Enter');
    await dark.waitFor(async () => {
      const v = await view(dark, shellId, 'zqxpalette42');
      return v.line >= v.top && v.line < v.top + v.rows && v.selection === 'zqxpalette42';
    }, 'the ended pane scrolled to the line, the word marked');
  }, 120_000);

  it('finds a word whose line scrolled past the terminal\'s whole history in a pane that ended, and shows it from the index in the bench\'s viewer, marked', async () => {
    // 12,000 lines after it: more than the terminal's 10,000 lines of history. Then the program ends.
    const gone = await conn.request('pane.create', { command: ['/bin/sh', '-c', 'echo zqx""gone77 here; seq 1 12000; echo done-printing'], splitOf: catId, direction: 'down' });
    await dark.waitForText(gone.id, /done-printing/, 60_000);
    await dark.waitFor(async () => (await dark.pane(gone.id))?.status === 'exited', 'the program to end');
    const inTerminal = await view(dark, gone.id, 'zqxgone77 here');
    expect(inTerminal.line).toBe(-1);
    await dark.focusTerminal(catId);
    await dark.page.keyboard.press('Control+Shift+F');
    const input = dark.page.getByRole('searchbox', { name: 'Search everything' });
    await input.fill('zqxgone77');
    const hit = dark.page.locator('.td-search-hit', { hasText: 'zqxgone77 here' });
    await hit.first().waitFor();
    await dark.page.keyboard.press('Enter');
    const viewer = dark.page.getByRole('dialog', { name: /^Document: Output of / });
    await viewer.waitFor();
    const current = viewer.locator('li[aria-current="true"]');
    expect(await current.locator('code').innerText()).toBe('zqxgone77 here');
    expect(await current.isVisible()).toBe(true);
    // The lines after it, as printed.
    expect(await viewer.locator('li[aria-current="true"] + li code').innerText()).toBe('1');
    await dark.screenshot('search-history-dark');
    expect(await axeViolations(dark, 'history viewer, dark')).toEqual([]);
    await dark.page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    // The same in the light window.
    await light.page.locator('.titlebar').click({ position: { x: 400, y: 10 } });
    await light.page.keyboard.press('Control+Shift+F');
    await light.page.getByRole('searchbox', { name: 'Search everything' }).fill('zqxgone77');
    await light.page.locator('.td-search-hit', { hasText: 'zqxgone77 here' }).first().waitFor();
    await light.page.keyboard.press('Enter');
    const lightViewer = light.page.getByRole('dialog', { name: /^Document: Output of / });
    await lightViewer.locator('li[aria-current="true"]').waitFor();
    await light.screenshot('search-history-light');
    expect(await axeViolations(light, 'history viewer, light')).toEqual([]);
  }, 180_000);

  it('after the service stops and comes back, jumps to the word in an ended pane\'s saved screen, its Resume there', async () => {
    const script = "console.log('zqxsaved ' + 6 * 7); for (let i = 1; i <= 60; i++) console.log('row ' + i); setInterval(() => {}, 1e9);";
    const kept = await conn.request('pane.create', { command: [process.execPath, '-e', script], splitOf: catId, direction: 'right' });
    await dark.waitForText(kept.id, /^row 60$/m);
    await dark.waitFor(async () => (await conn.request('search.query', { query: 'zqxsaved' })).ok && ((await conn.request('search.query', { query: 'zqxsaved' })) as { hits: unknown[] }).hits.length > 0, 'the word indexed');
    // The service stops as a person stops it (its panes' programs ended, their screens saved); a new one starts.
    conn.close();
    await dark.close();
    await light?.close();
    await serve.kill();
    await stopService({ env: serve.env });
    serve = await startServe({ reuse: serve });
    dark = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1200, height: 760 } });
    const overlay = dark.page.locator(`[data-pane-id="${kept.id}"] [data-testid="ended-overlay"]`);
    await overlay.waitFor();
    await dark.waitForText(kept.id, /^row 60$/m);
    // The ended pane's overlay covers its terminal: the shortcut from the title bar.
    await dark.page.locator('.titlebar').click({ position: { x: 400, y: 10 } });
    await dark.page.keyboard.press('Control+Shift+F');
    await dark.page.getByRole('searchbox', { name: 'Search everything' }).fill('zqxsaved');
    await dark.page.locator('.td-search-hit', { hasText: 'zqxsaved 42' }).first().waitFor();
    expect(await dark.page.locator('.td-search-group-head', { hasText: kept.id }).textContent()).toContain('ended');
    await dark.page.keyboard.press('Enter');
    await dark.waitFor(async () => {
      const v = await view(dark, kept.id, 'zqxsaved 42');
      return v.line >= v.top && v.line < v.top + v.rows && v.selection === 'zqxsaved 42';
    }, 'the saved screen scrolled to the line, marked');
    expect(await overlay.getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);
    await dark.screenshot('search-ended-dark');
  }, 180_000);
});
