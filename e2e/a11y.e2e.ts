/**
 * Accessibility end to end, in Chromium against the real serve shell: every shelf tab
 * and its count in sight at every width the bench allows, accessible names that say
 * what a badge, a dot or a column is, control characters shown as Control Pictures,
 * and an axe-core scan (@axe-core/playwright) of the window, each card kind and each
 * viewer, light and dark, failing on serious and critical violations.
 * Screenshots go to e2e/artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_WIDTH } from '../renderer/workbench/width.ts';
import { ARTIFACTS, ROOT, axeViolations, dropSurface, openPaneFixture, openWindow, tempDir, type PaneFixture, type TdPage } from './harness.ts';

let fixture: PaneFixture;
let light: TdPage;
let scratch: string;

const bench = (w: TdPage): Locator => w.page.locator(`[data-pane-id="${fixture.paneId}"] .td-bench`);
const card = (w: TdPage, id: string): Locator => bench(w).locator(`[data-surface-id="${id}"]`);

async function openBench(w: TdPage): Promise<void> {
  // (.pane-bench: the bench's place, there from the moment it opens, its chunk loaded or not)
  if ((await w.page.locator(`[data-pane-id="${fixture.paneId}"] .pane-bench`).count()) === 0) await w.header(fixture.paneId).getByRole('button', { name: 'Open bench' }).click();
  await bench(w).waitFor({ state: 'visible', timeout: 20_000 });
}

async function showShelf(w: TdPage, name: string): Promise<void> {
  const tab = bench(w).locator(`[data-shelf="${name}"]`);
  await tab.click();
  await w.waitFor(async () => (await tab.getAttribute('aria-selected')) === 'true', `shelf ${name} on screen`);
}

function sample(name: string): { id: string } & Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'assets', 'surfaces', `${name}.json`), 'utf8')) as { id: string } & Record<string, unknown>;
}

const violations = axeViolations;

/** Close any notices (a Tick ended, …): they come and go on their own timers. */
async function dismissNotices(w: TdPage): Promise<void> {
  const dismiss = w.page.locator('.notices button[aria-label="Dismiss"]');
  while ((await dismiss.count()) > 0) await dismiss.first().click().catch(() => undefined);
}

beforeAll(async () => {
  fixture = await openPaneFixture();
  scratch = tempDir('a11y');
  const md = path.join(scratch, 'notes.md');
  fs.writeFileSync(md, '# Findings\n\nThe cache holds **rendered reports**.\n\n- one\n- two\n');
  const html = path.join(scratch, 'report.html');
  fs.writeFileSync(html, '<!doctype html><title>Report</title><h1>Report</h1><p>p50 12 ms</p>');
  const svg = path.join(scratch, 'chart.svg');
  fs.writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#3a7"/></svg>');
  for (const name of ['response', 'decision', 'question', 'change', 'table', 'diagram', 'unclassified']) dropSurface(fixture.folder, sample(name));
  dropSurface(fixture.folder, { id: 'a-md', kind: 'artifact', title: 'Findings', model: { location: md, media_type: 'text/markdown', summary: 'What we found.' } });
  dropSurface(fixture.folder, { id: 'a-html', kind: 'artifact', title: 'Report', model: { location: html, media_type: 'text/html', summary: 'The report.' } });
  dropSurface(fixture.folder, { id: 'a-img', kind: 'artifact', title: 'Chart', model: { location: svg, media_type: 'image/svg+xml', summary: 'A chart.' } });
  // Control characters in a title and in option names, as an agent may send them.
  dropSurface(fixture.folder, { id: 'ctl', kind: 'decision', title: 'Evil\u001b[31m title\u0007', model: { question: 'Which?', options: [{ name: 'A\u0007B', recommended: true }, { name: 'C\u0000D' }] } });
  await openBench(fixture.win);
  await fixture.win.waitFor(async () => (await bench(fixture.win).locator('[data-shelf="Unsorted"] .tdb-count').count()) === 1, 'the surfaces to arrive', 30_000);
  light = await openWindow(fixture.browser, fixture.serve, { theme: 'light', viewport: { width: 1400, height: 900 } });
  await openBench(light);
}, 120_000);

afterAll(async () => {
  await light?.close().catch(() => undefined);
  await fixture?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('accessibility', () => {
  it('keeps every shelf tab and its count in sight at every width the bench allows, light and dark', async () => {
    for (const [w, theme] of [[fixture.win, 'dark'], [light, 'light']] as const) {
      const host = w.page.locator(`[data-pane-id="${fixture.paneId}"] .pane-bench`);
      for (const width of [Math.round((await host.boundingBox())!.width), BENCH_WIDTH.min]) {
        if (Math.round((await host.boundingBox())!.width) !== width) {
          // Drag the edge right until the bench is as narrow as it goes.
          const e = (await bench(w).locator('.tdb-edge').boundingBox())!;
          await w.page.mouse.move(e.x + 2, e.y + 200);
          await w.page.mouse.down();
          await w.page.mouse.move(e.x + 400, e.y + 200, { steps: 6 });
          await w.page.mouse.up();
          expect(Math.round((await host.boundingBox())!.width)).toBe(width);
        }
        for (const selected of ['Decide', 'Unsorted']) {
          await showShelf(w, selected);
          const strip = (await bench(w).locator('.tdb-shelves').boundingBox())!;
          const tabs = bench(w).getByRole('tab');
          expect(await tabs.count()).toBe(7);
          for (let i = 0; i < 7; i++) {
            const tab = tabs.nth(i);
            const b = (await tab.boundingBox())!;
            const name = await tab.getAttribute('data-shelf');
            const where = `${theme}, ${width} px, ${selected} on screen: ${name} at ${JSON.stringify(b)} in ${JSON.stringify(strip)}`;
            expect(b.x >= strip.x - 0.5 && b.x + b.width <= strip.x + strip.width + 0.5, where).toBe(true);
            expect(b.y >= strip.y - 0.5 && b.y + b.height <= strip.y + strip.height + 0.5, where).toBe(true);
            // Nothing covers it, and its count is inside it.
            const hit = await tab.evaluate((el) => {
              const r = el.getBoundingClientRect();
              const count = el.querySelector('.tdb-count, .tdb-total')?.getBoundingClientRect();
              const top = document.elementFromPoint(r.right - 3, r.top + r.height / 2);
              return { reached: !!top && el.contains(top), countInside: !count || (count.left >= r.left && count.right <= r.right) };
            });
            expect(hit, where).toEqual({ reached: true, countInside: true });
          }
        }
        await bench(w).locator('.tdb-bar').evaluate((el) => el.scrollIntoView());
        await bench(w).screenshot({ path: path.join(ARTIFACTS, `a11y-shelves-${theme}-${width}.png`) });
      }
    }
  });

  it('names badges, dots and sortable columns for what they are, and shows control characters as Control Pictures', async () => {
    const w = fixture.win;
    // The pane header's badge and the bench bar's count: "N unseen", not a bare number.
    const unseen = await w.pane(fixture.paneId);
    const n = unseen!.unseen;
    expect(n).toBeGreaterThan(0);
    expect(await w.header(fixture.paneId).ariaSnapshot()).toContain(`${n} unseen`);
    expect(await bench(w).locator('.tdb-bar').ariaSnapshot()).toMatch(/\d+ unseen/);
    // A card's name: its kind and title (", unseen" while its dot shows; the dot itself is hidden from the tree).
    await showShelf(w, 'Decide');
    const ctl = card(w, 'ctl');
    expect(await ctl.getAttribute('aria-label')).toMatch(/^Decision: Evil\u241b\[31m title\u2407(, unseen)?$/);
    expect(await ctl.locator('.tdb-title').innerText()).toBe('Evil\u241b[31m title\u2407');
    await expect.poll(() => ctl.getByRole('button', { name: 'Choose C\u2400D' }).count()).toBe(1);
    expect(await ctl.locator('.tdb-option-name').allInnerTexts()).toEqual(['A\u2407B', 'C\u2400D']);
    // Columns: "path, sortable", sorted ones say so through aria-sort.
    await showShelf(w, 'Data');
    const table = card(w, 'bench-table');
    const header = table.getByRole('columnheader', { name: 'path, sortable' });
    expect(await header.count(), await table.ariaSnapshot()).toBe(1);
    await table.getByRole('button', { name: 'path, sortable' }).click();
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
  });

  it('passes an axe-core scan of the window, every card kind and every viewer, light and dark (serious and critical)', async () => {
    const found: string[] = [];
    for (const [w, theme] of [[fixture.win, 'dark'], [light, 'light']] as const) {
      await dismissNotices(w);
      found.push(...await violations(w, `${theme} window`));
      for (const shelf of ['Decide', 'Review', 'Replies', 'Files', 'Data', 'Notes', 'Unsorted']) {
        await showShelf(w, shelf);
        if (shelf === 'Data') await card(w, 'flow').locator('iframe').waitFor({ timeout: 30_000 });
        await dismissNotices(w);
        found.push(...await violations(w, `${theme} ${shelf} shelf`));
      }
      // Each viewer: Markdown, HTML (its frame left out), image, and a diagram opened large.
      for (const [id, button] of [['a-md', 'Open notes.md'], ['a-html', 'Open report.html'], ['a-img', 'Open chart.svg']] as const) {
        await showShelf(w, 'Files');
        await card(w, id).getByRole('button', { name: button }).click();
        const viewer = w.page.locator('.td-viewer');
        await viewer.waitFor({ timeout: 20_000 });
        if (id === 'a-img') await viewer.locator('img').waitFor();
        if (id === 'a-md') await viewer.getByRole('heading', { name: 'Findings' }).waitFor();
        found.push(...await violations(w, `${theme} viewer ${id}`));
        await w.page.screenshot({ path: path.join(ARTIFACTS, `a11y-viewer-${id}-${theme}.png`) });
        await viewer.getByRole('button', { name: 'Close the document' }).click();
        await viewer.waitFor({ state: 'detached' });
      }
      await showShelf(w, 'Data');
      await card(w, 'flow').getByRole('button', { name: 'Open large: Request flow' }).click();
      await w.page.locator('.td-viewer').waitFor();
      found.push(...await violations(w, `${theme} viewer diagram`));
      await w.page.locator('.td-viewer').getByRole('button', { name: 'Close the document' }).click();
      await w.page.screenshot({ path: path.join(ARTIFACTS, `a11y-window-${theme}.png`) });
    }
    expect(found).toEqual([]);
  }, 600_000); // about 26 scans of 5 s each here; the deadline only guards a hang
});
