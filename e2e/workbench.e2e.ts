/**
 * The workbench end to end: the real serve shell, real PTYs running bash, real files
 * dropped into a real pane's folder, the built renderer in Chromium. Every kind renders
 * (asserted on content), arrivals keep focus, shelf and selection, and actions reach the
 * pane's PTY as the exact line (read back by a program in the pane) and actions.jsonl.
 * Screenshots of each kind's card, light and dark, go to e2e/artifacts/ on every run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, ROOT, dropSurface, openPaneFixture, openWindow, paneFolder, tempDir, type PaneFixture, type Serve, type TdPage } from './harness.ts';

let fixture: PaneFixture;
let serve: Serve;
let browser: Browser;
let win: TdPage;
let paneId: string;
let folder: string;
let tag: string;
let scratch: string;

// ───── helpers ─────

const paneFolderOf = (w: TdPage, id: string): Promise<string> => paneFolder(w, serve, id);
const drop = (doc: { id: string } & Record<string, unknown>): void => dropSurface(folder, doc);

let readers = 0;
/** Start a program in the pane that reads one line from stdin into a file; returns the file. */
async function lineReader(): Promise<string> {
  const n = ++readers;
  const out = path.join(scratch, `line-${n}.txt`);
  const marker = `ready-${n}-${Math.random().toString(36).slice(2, 8)}`;
  const py = `import sys;print("${marker}",flush=True);open(${JSON.stringify(out)},"w").write(sys.stdin.readline())`;
  await win.typeLine(paneId, `python3 -c '${py}'`);
  await win.waitForText(paneId, new RegExp(`^${marker}$`, 'm'));
  return out;
}

async function lineIn(file: string): Promise<string> {
  try {
    await win.waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n'), `a line in ${file}`);
  } catch (e) {
    const errors = await bench().locator('.tdb-error').allInnerTexts();
    const text = (await win.text(paneId)).split('\n').slice(-8).join('\n');
    await win.page.screenshot({ path: path.join(ARTIFACTS, 'bench-failure.png') });
    throw new Error(`${(e as Error).message}; errors on the bench: ${JSON.stringify(errors)}; actions: ${JSON.stringify(actionsLog())}; the pane shows:\n${text}`);
  }
  return fs.readFileSync(file, 'utf8');
}

function actionsLog(): Array<Record<string, unknown>> {
  const f = path.join(folder, 'actions.jsonl');
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function bench(w: TdPage = win): Locator {
  return w.page.locator(`[data-pane-id="${paneId}"] .td-bench`);
}

function card(id: string, w: TdPage = win): Locator {
  // The unclassified card takes an id the core makes up; find it by kind.
  if (id === 'odd') return bench(w).locator('[data-kind="unclassified"]').first();
  return bench(w).locator(`[data-surface-id="${id}"]`);
}

async function showShelf(name: string, w: TdPage = win): Promise<void> {
  await bench(w).locator(`[data-shelf="${name}"]`).click();
  await w.waitFor(async () => (await bench(w).locator(`[data-shelf="${name}"]`).getAttribute('aria-selected')) === 'true', `shelf ${name} on screen`);
}

async function unseenOn(shelf: string, w: TdPage = win): Promise<number> {
  // Read in one go: the count may go (seen) between asking whether it is there and reading it.
  const counts = await bench(w).locator(`[data-shelf="${shelf}"] .tdb-count`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-unseen'))));
  return counts[0] ?? 0;
}

async function activeIsTerminal(w: TdPage = win): Promise<boolean> {
  return w.page.evaluate((id) => {
    const a = document.activeElement;
    return !!a && a.classList.contains('xterm-helper-textarea') && !!a.closest(`[data-pane-id="${id}"]`);
  }, paneId);
}

async function shot(loc: Locator, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await loc.scrollIntoViewIfNeeded();
  await loc.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

async function openBench(w: TdPage): Promise<void> {
  // (.pane-bench: the bench's place, there from the moment it opens, its chunk loaded or not)
  if ((await w.page.locator(`[data-pane-id="${paneId}"] .pane-bench`).count()) === 0) {
    await w.header(paneId).getByRole('button', { name: 'Open bench' }).click();
  }
  await bench(w).waitFor({ state: 'visible', timeout: 20_000 });
}

// ───── the documents ─────

const CHANGE = {
  id: 'change-847',
  kind: 'change',
  title: 'Tube geometry from the layout',
  model: {
    summary: 'Compute tube geometry from the layout, not from terminal state.',
    files: [
      {
        path: 'src/surface.rs',
        diff: '--- a/src/surface.rs\n+++ b/src/surface.rs\n@@ -10,7 +10,7 @@ fn tube(layout: &Layout) -> Tube {\n-    let width = term.cols();\n+    let width = layout.cols;\n     Tube::new(width)\n }\n@@ -40,3 +40,4 @@ fn draw() {\n     paint();\n+    flush();\n }\n',
      },
      { path: 'src/layout.ts', diff: '@@ -1,3 +1,4 @@\n export interface Layout {\n   cols: number;\n+  rows: number;\n }\n' },
    ],
  },
};

const DECISION = (id: string, title: string) => ({
  id,
  kind: 'decision',
  title,
  model: {
    question: 'LRU or TTL?',
    context: 'The cache holds **rendered reports**; memory is capped at 256 MB.',
    options: [
      { name: 'LRU', recommended: true, case: '3× fewer misses on the replay corpus.', cost: 'A cold start is slower.' },
      { name: 'TTL', case: 'Simple to reason about.', cost: 'Misses spike every 5 minutes.' },
    ],
  },
});

beforeAll(async () => {
  fixture = await openPaneFixture();
  ({ serve, browser, win, paneId, folder, tag } = fixture);
  scratch = tempDir('bench');
  await openBench(win);
});

afterAll(async () => {
  await fixture?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the workbench', () => {
  it('renders every kind for what it is', async () => {
    const md = path.join(scratch, 'notes.md');
    fs.writeFileSync(md, '# Notes\n\nSome *notes*.\n');
    drop({
      id: 'resp-1', kind: 'response', title: 'Cache landed',
      model: {
        layman: 'The cache now keeps reports for ten minutes.',
        register: 'done',
        body: 'Changed `cache.ts`:\n\n```ts\nconst ttl = 600; // seconds\n```\n\n<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">',
      },
    });
    drop(DECISION('cache-eviction', 'Cache eviction policy'));
    drop({ id: 'q1', kind: 'question', title: 'Coffee or tea?', model: { question: 'What should the break room serve?', options: [{ name: 'Coffee', detail: 'Espresso machine' }, { name: 'Tea' }], free_text: true } });
    drop(CHANGE);
    drop({ id: 'report', kind: 'artifact', title: 'Release notes', model: { location: md, media_type: 'text/markdown', summary: 'What changed in this release.' } });
    drop({ id: 'gone', kind: 'artifact', title: 'Old report', model: { location: path.join(scratch, 'nowhere.html'), media_type: 'text/html', summary: 'It was moved.' } });
    drop({ id: 'bench-table', kind: 'table', title: 'Latency', model: { columns: ['path', 'p50 ms', 'p99 ms'], rows: [['/a', 12, 80], ['/b', 3, 9], ['/c', 40, 120]], caption: 'Replay corpus, 10k requests' } });
    drop({ id: 'flow', kind: 'diagram', title: 'Request flow', model: { format: 'mermaid', source: 'graph LR\n  A[Client] --> B[Cache]\n  B --> C[Origin]', caption: 'Where a request goes' } });
    drop({ id: 'odd', kind: 'hologram', title: 'A hologram', model: { beam: 1 } });

    // Replies: the layman line first, the body as sanitized Markdown with highlighted code.
    await showShelf('Replies');
    const resp = card('resp-1');
    await resp.waitFor({ timeout: 20_000 });
    expect(await resp.locator('.tdb-layman').innerText()).toBe('The cache now keeps reports for ten minutes.');
    expect(await resp.locator('.tdb-badge').innerText()).toBe('done');
    expect(await resp.locator('pre code .hljs-keyword').first().innerText()).toBe('const');
    expect(await resp.locator('script').count()).toBe(0);
    expect(await resp.locator('img').count()).toBe(0); // only data: images load; this one is its alt text
    expect(await resp.locator('.td-img-alt').innerText()).toBe('[image]');
    expect(await win.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    // Decide: a decision with its options, case, cost and recommendation; a question with buttons.
    await showShelf('Decide');
    const dec = card('cache-eviction');
    await dec.waitFor();
    expect(await dec.locator('.tdb-question').innerText()).toBe('LRU or TTL?');
    expect(await dec.locator('.tdb-option').count()).toBe(2);
    expect(await dec.locator('.tdb-option.is-recommended .tdb-option-name').innerText()).toBe('LRU');
    expect(await dec.locator('.tdb-option').nth(0).locator('.tdb-case').innerText()).toContain('3× fewer misses');
    expect(await dec.locator('.tdb-option').nth(1).locator('.tdb-cost').innerText()).toContain('Misses spike');
    expect(await dec.locator('strong').innerText()).toBe('rendered reports');
    await expect.poll(() => dec.getByRole('button', { name: 'Approve LRU, the recommended option' }).count()).toBe(1);
    const q = card('q1');
    await expect.poll(() => q.getByRole('button', { name: 'Choose Coffee' }).count()).toBe(1);
    expect(await q.getByRole('button', { name: 'Choose Tea' }).count()).toBe(1);
    expect(await q.locator('.tdb-detail').first().innerText()).toBe('Espresso machine');

    // Review: the diff file by file and hunk by hunk, numbered, highlighted.
    await showShelf('Review');
    const ch = card('change-847');
    await ch.waitFor();
    expect(await ch.locator('.tdb-file-diff').count()).toBe(2);
    expect(await ch.locator('.tdb-path').allInnerTexts()).toEqual(['src/surface.rs', 'src/layout.ts']);
    expect(await ch.locator('[data-hunk]').evaluateAll((els) => els.map((e) => e.getAttribute('data-hunk')))).toEqual([
      'src/surface.rs#hunk-1', 'src/surface.rs#hunk-2', 'src/layout.ts#hunk-1',
    ]);
    expect(await ch.locator('.tdb-dl-add').first().innerText()).toContain('let width = layout.cols;');
    expect(await ch.locator('.tdb-dl-del').first().innerText()).toContain('let width = term.cols();');
    expect(await ch.locator('[data-hunk="src/layout.ts#hunk-1"] .hljs-keyword').first().innerText()).toBe('export');

    // Files: name, type, summary, open; the missing file shown as missing.
    await showShelf('Files');
    const art = card('report');
    await art.waitFor();
    expect(await art.locator('.tdb-file-name').innerText()).toBe('notes.md');
    expect(await art.locator('.tdb-file-meta').innerText()).toContain('text/markdown');
    expect(await art.locator('.td-md').innerText()).toContain('What changed in this release.');
    expect(await art.getByRole('button', { name: 'Open notes.md' }).count()).toBe(1);
    await expect.poll(() => card('gone').locator('.tdb-badge', { hasText: 'missing' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await art.locator('.tdb-badge', { hasText: 'missing' }).count()).toBe(0);

    // Data: a sortable table, and a Mermaid diagram drawn in a sandboxed frame.
    await showShelf('Data');
    const tbl = card('bench-table');
    await tbl.waitFor();
    const firstColumn = () => tbl.locator('tbody tr td:first-child').allInnerTexts();
    expect(await firstColumn()).toEqual(['/a', '/b', '/c']);
    await tbl.getByRole('button', { name: 'p50 ms, sortable' }).click();
    expect(await firstColumn()).toEqual(['/b', '/a', '/c']);
    await tbl.getByRole('button', { name: 'p50 ms, sortable' }).click();
    expect(await firstColumn()).toEqual(['/c', '/a', '/b']);
    expect(await tbl.locator('caption').innerText()).toBe('Replay corpus, 10k requests');
    expect(await tbl.locator('th').first().evaluate((e) => getComputedStyle(e).position)).toBe('sticky');
    const dia = card('flow');
    const frame = dia.locator('iframe.td-diagram-frame');
    await frame.waitFor({ timeout: 30_000 });
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    const labels = (await dia.frameLocator('iframe').locator('svg').evaluate((e) => e.textContent ?? '')).replace(/\s+/g, ' ');
    expect(labels).toMatch(/Client.*Cache.*Origin/);
    expect(await dia.frameLocator('iframe').locator('script, foreignObject').count()).toBe(0);
    expect(await dia.locator('.tdb-caption').innerText()).toBe('Where a request goes');

    // Unsorted: the reason, and the raw payload folded.
    await showShelf('Unsorted');
    const odd = card('odd');
    await odd.waitFor();
    expect(await odd.locator('.tdb-reason').innerText()).toContain('hologram');
    expect(await odd.locator('details.tdb-raw').getAttribute('open')).toBeNull();
    expect(await odd.locator('details.tdb-raw pre').textContent()).toContain('beam');

    // Notes: a person's own note, made on the bench.
    await showShelf('Notes');
    await bench().getByRole('textbox', { name: 'New note' }).fill('Check the cold start before merging.');
    await bench().getByRole('button', { name: 'Keep note' }).click();
    const note = bench().locator('[data-kind="comment"]');
    await note.waitFor();
    expect(await note.locator('.tdb-note-text').innerText()).toBe('Check the cold start before merging.');
    expect(await note.locator('textarea').count()).toBe(0); // nothing to send: never offered to agents
  });

  it('keeps focus, shelf and selection when a surface arrives, and counts it unseen on its shelf', async () => {
    await showShelf('Replies');
    await card('resp-1').click({ position: { x: 40, y: 10 } });
    await expect.poll(() => card('resp-1').getAttribute('aria-current')).toBe('true');
    await win.focusTerminal(paneId);
    expect(await activeIsTerminal()).toBe(true);
    const before = await unseenOn('Decide');
    const scrollBefore = await bench().locator('.tdb-list').evaluate((e) => e.scrollTop);

    drop(DECISION('arrival', 'Arrived while you looked elsewhere'));
    await win.waitFor(async () => (await unseenOn('Decide')) === before + 1, 'the Decide shelf to count one more unseen');

    expect(await bench().locator('[data-shelf="Replies"]').getAttribute('aria-selected')).toBe('true');
    expect(await card('resp-1').getAttribute('aria-current')).toBe('true');
    expect(await activeIsTerminal()).toBe(true);
    expect(await bench().locator('.tdb-list').evaluate((e) => e.scrollTop)).toBe(scrollBefore);

    // A reply arriving on the shelf on screen is seen at once and lands above without moving focus.
    drop({ id: 'resp-2', kind: 'response', title: 'Another reply', model: { layman: 'Tests pass.', register: 'progress' } });
    await card('resp-2').waitFor();
    await win.waitFor(async () => (await unseenOn('Replies')) === 0, 'the reply on screen to be seen');
    expect(await activeIsTerminal()).toBe(true);
    expect(await card('resp-1').getAttribute('aria-current')).toBe('true');
    const order = await bench().locator('[data-kind="response"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-surface-id')));
    expect(order).toEqual(['resp-2', 'resp-1']);

    // Looking at Decide clears its count.
    await showShelf('Decide');
    await win.waitFor(async () => (await unseenOn('Decide')) === 0, 'Decide to be seen');
  });

  it('types approve, choose, reject, reject_part and a commented action into the pane, and records them', async () => {
    drop(DECISION('d-approve', 'Approve me'));
    drop(DECISION('d-choose', 'Choose for me'));
    drop({ ...CHANGE, id: 'change-rej', title: 'Reject a hunk of me' });
    drop({ ...CHANGE, id: 'change-all', title: 'Reject all of me' });
    drop({ id: 'q-comment', kind: 'question', title: 'Which colour?', model: { question: 'Which colour?', options: [{ name: 'Blue' }, { name: 'Green' }] } });
    await showShelf('Decide');
    await card('q-comment').waitFor({ timeout: 20_000 });

    const expectLine = async (act: () => Promise<void>, line: string, logged: Record<string, unknown>) => {
      const file = await lineReader();
      await act();
      expect(await lineIn(file)).toBe(`${line}\n`);
      await win.waitFor(() => actionsLog().some((e) => Object.entries(logged).every(([k, v]) => e[k] === v)), `actions.jsonl to hold ${JSON.stringify(logged)}`);
    };

    await expectLine(
      () => card('d-approve').getByRole('button', { name: 'Approve LRU, the recommended option' }).click(),
      `[workbench:${tag}] approve on surface d-approve`,
      { surface: 'd-approve', action: 'approve', target: 'LRU', type: 'action', td: '0.4' },
    );
    // The card shows what was sent, and its deciding buttons cannot be pressed again.
    await expect.poll(() => card('d-approve').locator('.tdb-sent-line').first().innerText()).toBe(`[workbench:${tag}] approve on surface d-approve`);
    expect(await card('d-approve').getByRole('button', { name: 'Approve LRU, the recommended option' }).isDisabled()).toBe(true);
    expect(await card('d-approve').getByRole('button', { name: 'Choose TTL' }).isDisabled()).toBe(true);

    // Acting again takes a confirmation; then a different answer goes through.
    win.page.once('dialog', (d) => void d.accept());
    await card('d-approve').getByRole('button', { name: 'Act again on Approve me' }).click();
    await expect.poll(() => card('d-approve').getByRole('button', { name: 'Reject Approve me' }).isDisabled()).toBe(false);
    await expectLine(
      () => card('d-approve').getByRole('button', { name: 'Reject Approve me' }).click(),
      `[workbench:${tag}] reject on surface d-approve`,
      { surface: 'd-approve', action: 'reject' },
    );
    expect(await card('d-approve').getByRole('button', { name: 'Choose TTL' }).isDisabled()).toBe(true);

    await expectLine(
      () => card('d-choose').getByRole('button', { name: 'Choose TTL' }).click(),
      `[workbench:${tag}] choose on surface d-choose · TTL`,
      { surface: 'd-choose', action: 'choose', target: 'TTL' },
    );

    await expectLine(
      async () => {
        await card('q-comment').getByRole('textbox', { name: 'Comment on Which colour?' }).fill('Matches the logo.\u001b[31m');
        await card('q-comment').getByRole('button', { name: 'Choose Green' }).click();
      },
      `[workbench:${tag}] choose on surface q-comment · Green — Matches the logo. [31m`,
      { surface: 'q-comment', action: 'choose', target: 'Green', comment: 'Matches the logo.\u001b[31m' },
    );

    await showShelf('Review');
    await expectLine(
      () => card('change-rej').getByRole('button', { name: 'Reject hunk 2 of src/surface.rs' }).click(),
      `[workbench:${tag}] reject_part on surface change-rej · src/surface.rs#hunk-2`,
      { surface: 'change-rej', action: 'reject_part', target: 'src/surface.rs#hunk-2' },
    );
    // The hunk's state stays visible after the click; the other hunks stay open.
    await expect.poll(() => card('change-rej').locator('[data-hunk="src/surface.rs#hunk-2"]').getAttribute('class')).toContain('is-rejected');
    expect(await card('change-rej').locator('[data-hunk="src/surface.rs#hunk-2"] .tdb-badge').innerText()).toBe('rejected');
    expect(await card('change-rej').getByRole('button', { name: 'Approve hunk 2 of src/surface.rs' }).isDisabled()).toBe(true);
    expect(await card('change-rej').getByRole('button', { name: 'Approve hunk 1 of src/surface.rs' }).isDisabled()).toBe(false);

    await expectLine(
      async () => {
        await card('change-all').getByRole('textbox', { name: 'Comment on Reject all of me' }).fill('Not this sprint.');
        await card('change-all').getByRole('button', { name: 'Reject change Reject all of me (every hunk)' }).click();
      },
      `[workbench:${tag}] reject on surface change-all — Not this sprint.`,
      { surface: 'change-all', action: 'reject', comment: 'Not this sprint.' },
    );
  });

  it('works from the keyboard: shelves, cards, approve, comment, Escape back to the terminal', async () => {
    drop(DECISION('d-keys', 'Decide by keyboard'));
    await showShelf('Decide');
    await card('d-keys').waitFor({ timeout: 20_000 });
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Control+Shift+J');
    await win.waitFor(() => win.page.evaluate(() => !!document.activeElement?.closest('.td-bench')), 'focus in the bench');
    // ] and [ move between shelves.
    await win.page.keyboard.press(']');
    expect(await bench().locator('[data-shelf="Review"]').getAttribute('aria-selected')).toBe('true');
    await win.page.keyboard.press('[');
    expect(await bench().locator('[data-shelf="Decide"]').getAttribute('aria-selected')).toBe('true');
    // On a shelf tab, Right and Left move between shelves too.
    await bench().locator('[data-shelf="Decide"]').focus();
    await win.page.keyboard.press('ArrowRight');
    expect(await bench().locator('[data-shelf="Review"]').getAttribute('aria-selected')).toBe('true');
    await win.page.keyboard.press('ArrowLeft');
    expect(await bench().locator('[data-shelf="Decide"]').getAttribute('aria-selected')).toBe('true');
    // j selects the newest card (d-keys arrived last on Decide).
    await win.page.keyboard.press('j');
    await expect.poll(() => card('d-keys').getAttribute('aria-current')).toBe('true');
    // c focuses its composer; Escape leaves it; a approves with the comment… then Enter sends a comment.
    await win.page.keyboard.press('c');
    await win.waitFor(() => win.page.evaluate(() => document.activeElement?.getAttribute('aria-label') === 'Comment on Decide by keyboard'), 'the composer focused');
    await win.page.keyboard.type('Keyboard only.');
    await win.page.keyboard.press('Escape');
    await win.waitFor(() => win.page.evaluate(() => document.activeElement?.getAttribute('data-surface-id') === 'd-keys'), 'the card focused');
    const file = await lineReader();
    await win.page.keyboard.press('Control+Shift+J');
    await win.page.keyboard.press('a');
    expect(await lineIn(file)).toBe(`[workbench:${tag}] approve on surface d-keys — Keyboard only.\n`);
    await win.page.keyboard.press('Escape');
    await win.waitFor(() => activeIsTerminal(), 'focus back in the terminal');
  });

  it('answers a free-text question with Enter, and dismisses a card for good', async () => {
    await showShelf('Decide');
    const q = card('q1');
    await q.waitFor({ timeout: 20_000 });
    const file = await lineReader();
    await q.getByRole('textbox', { name: 'Comment on Coffee or tea?' }).fill('Green tea, please');
    await q.getByRole('textbox', { name: 'Comment on Coffee or tea?' }).press('Enter');
    expect(await lineIn(file)).toBe(`[workbench:${tag}] answer on surface q1 — Green tea, please\n`);
    expect(await q.getByRole('button', { name: 'Choose Coffee' }).isDisabled()).toBe(true);

    drop({ id: 'to-dismiss', kind: 'artifact', title: 'Stale report', model: { location: path.join(scratch, 'stale.html'), summary: 'Not needed.' } });
    // Several options at once when the question allows it.
    drop({ id: 'q-multi', kind: 'question', title: 'Which platforms?', model: { question: 'Which platforms?', options: [{ name: 'Linux' }, { name: 'macOS' }, { name: 'Windows' }], multiple: true } });
    const qm = card('q-multi');
    await qm.waitFor({ timeout: 20_000 });
    await qm.getByRole('checkbox', { name: 'Windows' }).check();
    await qm.getByRole('checkbox', { name: 'Linux' }).check();
    const file2 = await lineReader();
    await qm.getByRole('button', { name: 'Choose Linux, Windows' }).click();
    expect(await lineIn(file2)).toBe(`[workbench:${tag}] choose on surface q-multi · Linux, Windows\n`);

    await showShelf('Files');
    await card('to-dismiss').getByRole('button', { name: 'Dismiss Stale report' }).click();
    await card('to-dismiss').waitFor({ state: 'detached' });
    expect(actionsLog().some((e) => e.surface === 'to-dismiss')).toBe(false); // dismiss tells no one
    // A new window gets the bench back from the pane folder, without the dismissed card.
    const again = await openWindow(browser, serve, { theme: 'dark' });
    try {
      await openBench(again);
      await showShelf('Files', again);
      await card('report', again).waitFor({ timeout: 20_000 });
      expect(await card('to-dismiss', again).count()).toBe(0);
    } finally {
      await again.close();
    }
  });

  it('keeps the cards in view still when cards arrive above them', async () => {
    await showShelf('Replies');
    for (let i = 0; i < 6; i++) {
      drop({ id: `filler-${i}`, kind: 'response', title: `Filler ${i}`, model: { layman: `Filler reply number ${i}, long enough to take some room on the bench.`, body: 'Line one.\n\nLine two.\n\nLine three.' } });
    }
    await card('filler-5').waitFor({ timeout: 20_000 });
    const list = bench().locator('.tdb-list');
    // Scrolled, and its scroll event handled (the bench anchors on it), however late the frame.
    await list.evaluate((e) => new Promise<void>((resolve) => {
      e.addEventListener('scroll', () => setTimeout(resolve, 0), { once: true });
      e.scrollTop = 260;
    }));
    // The first card whose bottom is below the top of the list, and where it is.
    const probe = () => list.evaluate((e) => {
      const top = e.getBoundingClientRect().top;
      const cards = [...e.querySelectorAll<HTMLElement>('[data-surface-id]')];
      const c = cards.find((x) => x.getBoundingClientRect().bottom > top + 1)!;
      return { id: c.dataset.surfaceId!, y: c.getBoundingClientRect().top };
    });
    const before = await probe();
    drop({ id: 'filler-new', kind: 'response', title: 'Arrived above', model: { layman: 'A new reply lands above the others.', body: 'With\n\na\n\nbody.' } });
    await card('filler-new').waitFor({ timeout: 20_000 });
    await win.page.waitForTimeout(100);
    const after = await probe();
    expect(after.id).toBe(before.id);
    expect(Math.abs(after.y - before.y)).toBeLessThan(2); // sub-pixel rounding of scrollTop, not a jump (a card is ~100 px)
    // A quiet pill says something arrived above; it takes the person there only when pressed.
    const pill = bench().getByRole('button', { name: /^\d+ new above: scroll to the top$/ });
    await pill.waitFor();
    await pill.click();
    await win.waitFor(() => list.evaluate((e) => e.scrollTop === 0), 'the list at the top');
    await pill.waitFor({ state: 'detached' });
  });

  it('toggles with Ctrl+Shift+B from the terminal, written to bench.json', async () => {
    const benchJson = () => JSON.parse(fs.readFileSync(path.join(folder, 'bench.json'), 'utf8')) as { open: boolean; at: string };
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Control+Shift+B');
    await bench().waitFor({ state: 'detached' });
    await win.waitFor(() => benchJson().open === false, 'bench.json to say closed');
    // Arrivals while the bench is closed are unseen, and counted on the pane.
    drop({ id: 'while-closed', kind: 'response', title: 'While closed', model: { layman: 'This came while the bench was closed.' } });
    await win.waitFor(async () => ((await win.pane(paneId))?.unseen ?? 0) >= 1, 'the pane to count an unseen surface');
    await win.page.keyboard.press('Control+Shift+B');
    await bench().waitFor();
    await win.waitFor(() => benchJson().open === true, 'bench.json to say open');
    expect(await activeIsTerminal()).toBe(true);
  });

  it('widens when its edge is dragged, and remembers the width', async () => {
    const host = win.page.locator(`[data-pane-id="${paneId}"] .pane-bench`);
    const before = (await host.boundingBox())!;
    const edge = bench().locator('.tdb-edge');
    const e = (await edge.boundingBox())!;
    await win.page.mouse.move(e.x + 2, e.y + 200);
    await win.page.mouse.down();
    await win.page.mouse.move(e.x - 60, e.y + 200, { steps: 4 });
    await win.page.mouse.move(e.x - 118, e.y + 200, { steps: 4 });
    await win.page.mouse.up();
    const after = (await host.boundingBox())!;
    expect(Math.round(after.width - before.width)).toBe(120);
    expect(Number(await win.page.evaluate(() => localStorage.getItem('td.benchWidth')))).toBe(Math.round(after.width));
  });

  it("shows a Tick's approval request on the asking pane's Decide shelf, and answers it", async () => {
    // A real agent-side MCP client (the SDK's) through `terminal-delight mcp`, as this pane's agent.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const transport = new StdioClientTransport({
      command: path.join(ROOT, 'bin', 'terminal-delight'),
      args: ['mcp'],
      env: { ...env, XDG_STATE_HOME: serve.stateDir, TD_SOCKET: path.join(serve.stateDir, 'app.sock'), TD_NODE: process.execPath, TD_PANE_ID: paneId },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bench-e2e', version: '1.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
      return { isError: r.isError === true, json: JSON.parse(r.content[0]?.text ?? '{}') as Record<string, unknown> };
    };
    try {
      const opened = await call('TickManage', { action: 'open', command: [process.execPath, path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs')], cwd: scratch, title: 'Counter' });
      expect(opened.isError).toBe(false);
      const instance = opened.json.instance as string;
      await showShelf('Replies');
      await win.focusTerminal(paneId);

      const approved = call('TickCall', { instance, tool: 'increment', args: { amount: 2 } });
      // The card arrives on Decide (not on screen): counted unseen, focus stays in the terminal.
      await win.waitFor(async () => (await unseenOn('Decide')) >= 1, 'the approval to count on Decide', 30_000);
      expect(await activeIsTerminal()).toBe(true);
      await showShelf('Decide');
      const ask = bench().locator('[data-kind="approval"]').first();
      await ask.waitFor();
      expect(await ask.locator('.tdb-title').innerText()).toBe('increment');
      expect(JSON.parse(await ask.locator('.tdb-args').innerText())).toEqual({ amount: 2 });
      expect(await ask.locator('.tdb-meta').innerText()).toContain('revision 1');
      await shot(ask, 'bench-approval-dark');
      await ask.getByRole('button', { name: 'Approve increment' }).click();
      expect(await approved).toMatchObject({ isError: false, json: { outcome: 'executed', approval: 'approved', result: { value: 2 } } });
      await expect.poll(() => ask.locator('.tdb-badge').innerText()).toBe('approved');
      expect(await ask.getByRole('button', { name: 'Approve increment' }).count()).toBe(0); // answered: no second answer

      const refused = call('TickCall', { instance, tool: 'increment', args: { amount: 5 } });
      const ask2 = bench().locator('[data-kind="approval"]', { hasText: '"amount": 5' });
      await ask2.waitFor({ timeout: 30_000 });
      await ask2.getByRole('button', { name: 'Refuse increment' }).click();
      expect(await refused).toMatchObject({ isError: true, json: { outcome: 'not_executed', approval: 'refused' } });
      await expect.poll(() => ask2.locator('.tdb-badge').innerText()).toBe('refused');
      // Answered approvals can be put away.
      const answered = bench().locator('[data-kind="approval"]');
      await answered.first().getByRole('button', { name: 'Put away the answered approval of increment' }).click();
      await answered.first().getByRole('button', { name: 'Put away the answered approval of increment' }).click();
      await expect.poll(() => answered.count()).toBe(0);
      await call('TickManage', { action: 'close', instance });
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('saves a screenshot of each kind of card, light and dark', async () => {
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1400, height: 900 } });
    try {
      await openBench(light);
      const shots: Array<[string, string]> = [
        ['Replies', 'resp-1'], ['Decide', 'cache-eviction'], ['Decide', 'q1'], ['Review', 'change-rej'],
        ['Files', 'report'], ['Files', 'gone'], ['Data', 'bench-table'], ['Data', 'flow'], ['Unsorted', 'odd'],
      ];
      for (const [w, theme] of [[win, 'dark'], [light, 'light']] as const) {
        // The window's own notices (a Tick asked, a Tick ended) would cover the cards.
        const dismiss = w.page.locator('.notices button[aria-label="Dismiss"]');
        while ((await dismiss.count()) > 0) await dismiss.first().click();
        for (const [shelf, id] of shots) {
          await showShelf(shelf, w);
          const c = card(id, w);
          await c.waitFor({ timeout: 20_000 });
          if (id === 'flow') await c.locator('iframe').waitFor({ timeout: 30_000 });
          await shot(c, `bench-${id}-${theme}`);
        }
        await showShelf('Notes', w);
        await shot(bench(w).locator('[data-kind="comment"]').first(), `bench-note-${theme}`);
        await showShelf('Decide', w);
        await w.page.screenshot({ path: path.join(ARTIFACTS, `bench-window-${theme}.png`) });
      }
    } finally {
      await light.close();
    }
    for (const theme of ['dark', 'light']) expect(fs.existsSync(path.join(ARTIFACTS, `bench-resp-1-${theme}.png`))).toBe(true);
  });
});
