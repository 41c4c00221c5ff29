/**
 * Document viewers end to end: 'open' on a Markdown, an image, an HTML and another
 * artifact, against the real serve shell with real files; the HTML frame's sandbox
 * (no parent.document, no WebSocket to the app, no network); a decision brief's note
 * reaching the pane's PTY as a line and actions.jsonl; a forged note ignored.
 * Screenshots of each viewer, light and dark, go to e2e/artifacts/ on every run.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
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

function artifact(id: string, file: string, mediaType: string, summary: string): void {
  drop({ id, kind: 'artifact', title: path.basename(file), model: { location: file, media_type: mediaType, summary } });
}

/** A small real PNG: a w×h gradient. */
function png(w: number, h: number): Buffer {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0;
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      raw[o] = Math.round((x / w) * 255);
      raw[o + 1] = Math.round((y / h) * 255);
      raw[o + 2] = 180;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let readers = 0;
async function lineReader(): Promise<string> {
  const n = ++readers;
  const out = path.join(scratch, `line-${n}.txt`);
  const marker = `ready-${n}-${Math.random().toString(36).slice(2, 8)}`;
  const py = `import sys;print("${marker}",flush=True);open(${JSON.stringify(out)},"w").write(sys.stdin.readline())`;
  // Focus the terminal without clicking it: a viewer may float over it.
  await win.page.locator(`[data-pane-id="${paneId}"] .xterm-helper-textarea`).focus();
  await win.page.keyboard.type(`python3 -c '${py}'`);
  await win.page.keyboard.press('Enter');
  await win.waitForText(paneId, new RegExp(`^${marker}$`, 'm'));
  return out;
}

async function lineIn(file: string): Promise<string> {
  await win.waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n'), `a line in ${file}`);
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

function viewer(w: TdPage = win): Locator {
  return w.page.locator('.td-viewer');
}

async function openBench(w: TdPage): Promise<void> {
  // (.pane-bench: the bench's place, there from the moment it opens, its chunk loaded or not)
  if ((await w.page.locator(`[data-pane-id="${paneId}"] .pane-bench`).count()) === 0) await w.header(paneId).getByRole('button', { name: 'Open bench' }).click();
  await bench(w).waitFor({ state: 'visible', timeout: 20_000 });
}

/** Show the Files shelf and press Open on an artifact card. */
async function open(id: string, w: TdPage = win): Promise<Locator> {
  await bench(w).locator('[data-shelf="Files"]').click();
  const c = bench(w).locator(`[data-surface-id="${id}"]`);
  await c.waitFor({ timeout: 20_000 });
  await c.getByRole('button', { name: /^Open / }).click();
  await viewer(w).waitFor({ timeout: 20_000 });
  return viewer(w);
}

async function closeViewer(w: TdPage = win): Promise<void> {
  await viewer(w).getByRole('button', { name: 'Close the document' }).click();
  await viewer(w).waitFor({ state: 'detached' });
}

async function shotViewer(w: TdPage, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await viewer(w).screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

// ───── the files ─────

let files: { md: string; img: string; probe: string; brief: string; bin: string };

beforeAll(async () => {
  fixture = await openPaneFixture();
  ({ serve, browser, win, paneId, folder, tag } = fixture);
  scratch = tempDir('viewers');
  files = {
    md: path.join(scratch, 'design.md'),
    img: path.join(scratch, 'gradient.png'),
    probe: path.join(scratch, 'probe.html'),
    brief: path.join(scratch, 'brief.html'),
    bin: path.join(scratch, 'dump.bin'),
  };
  fs.writeFileSync(files.md, [
    '# Cache design', '', 'The cache keeps **rendered reports** for ten minutes.', '',
    '```ts', 'export const TTL_SECONDS = 600;', '```', '',
    '| key | value |', '| --- | --- |', '| hits | 98% |', '',
    '<script>window.__pwned = true</script>', '[a link](https://example.com)',
  ].join('\n'));
  fs.writeFileSync(files.img, png(64, 48));
  // The probe tries to reach the app from inside the frame and reports what happened.
  fs.writeFileSync(files.probe, `<!doctype html><html><body><h1>Probe</h1><script>
    function report(probe, result) { parent.postMessage({ probe: probe, result: String(result) }, '*'); }
    try { report('parent-document', 'read:' + parent.document.title); } catch (e) { report('parent-document', 'blocked:' + e.name); }
    try { report('cookie', 'read:' + document.cookie); } catch (e) { report('cookie', 'blocked:' + e.name); }
    try { report('storage', 'read:' + typeof localStorage.length); } catch (e) { report('storage', 'blocked:' + e.name); }
    try {
      var ws = new WebSocket('ws://127.0.0.1:${'${PORT}'}/ws');
      ws.onopen = function () { report('websocket', 'open'); };
      ws.onerror = function () { report('websocket', 'error'); };
    } catch (e) { report('websocket', 'blocked:' + e.name); }
    fetch('/').then(function (r) { report('fetch', 'status:' + r.status); }, function (e) { report('fetch', 'blocked:' + e.name); });
    report('origin', String(self.origin));
  </script></body></html>`);
  fs.copyFileSync(path.join(ROOT, 'assets', 'surfaces', 'brief.html'), files.brief);
  fs.writeFileSync(files.bin, Buffer.from([0, 1, 2, 3, 255]));
  // The probe needs the serve port, known only now.
  fs.writeFileSync(files.probe, fs.readFileSync(files.probe, 'utf8').replace('${PORT}', String(serve.port)));

  artifact('doc-md', files.md, 'text/markdown', 'The design, in Markdown.');
  artifact('doc-img', files.img, 'image/png', 'A gradient.');
  artifact('doc-probe', files.probe, 'text/html', 'A page that tries to get out.');
  artifact('brief', files.brief, 'text/html', 'A decision brief.');
  artifact('doc-bin', files.bin, 'application/octet-stream', 'A binary dump.');
  await openBench(win);
});

afterAll(async () => {
  await fixture?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('document viewers', () => {
  it('shows Markdown rendered and sanitized, movable, resizable, closed with Escape', async () => {
    const v = await open('doc-md');
    expect(await v.getAttribute('data-view')).toBe('markdown');
    expect(await v.locator('h1').innerText()).toBe('Cache design');
    expect(await v.locator('strong').innerText()).toBe('rendered reports');
    expect(await v.locator('pre code .hljs-keyword').first().innerText()).toBe('export');
    expect(await v.locator('table td').first().innerText()).toBe('hits');
    expect(await v.locator('script').count()).toBe(0);
    expect(await v.locator('a[href="https://example.com"]').getAttribute('rel')).toContain('noopener');
    expect(await win.page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();

    // Moved by its title bar.
    const before = (await v.boundingBox())!;
    const title = v.locator('.tdv-title');
    const t = (await title.boundingBox())!;
    await win.page.mouse.move(t.x + 60, t.y + t.height / 2);
    await win.page.mouse.down();
    await win.page.mouse.move(t.x + 20, t.y + t.height / 2 + 30, { steps: 5 });
    await win.page.mouse.up();
    const after = (await v.boundingBox())!;
    expect(Math.round(after.x - before.x)).toBe(-40);
    expect(Math.round(after.y - before.y)).toBe(30);
    expect(await v.evaluate((e) => getComputedStyle(e).resize)).toBe('both');
    await shotViewer(win, 'viewer-markdown-dark');

    // Keys in the viewer are not the bench's: 'a' or 'x' here neither approves nor dismisses.
    await v.focus();
    await win.page.keyboard.press('x');
    await win.page.keyboard.press('a');
    expect(await bench().locator('[data-surface-id="doc-md"]').count()).toBe(1);
    expect(actionsLog().filter((e) => e.surface === 'doc-md')).toEqual([]);

    // Escape closes it and gives the keyboard back to the terminal.
    await v.focus();
    await win.page.keyboard.press('Escape');
    await v.waitFor({ state: 'detached' });
    expect(await win.page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea'))).toBe(true);
  });

  it('shows an image fitted, with zoom by buttons and Ctrl+wheel', async () => {
    const v = await open('doc-img');
    expect(await v.getAttribute('data-view')).toBe('image');
    const img = v.locator('img');
    await win.waitFor(() => img.evaluate((e) => (e as HTMLImageElement).naturalWidth === 64), 'the image to load');
    const zoom = () => v.locator('.tdv-zoom').getAttribute('data-zoom').then(Number);
    expect(await zoom()).toBe(100); // fitted: a small image is not blown up
    await v.getByRole('button', { name: 'Zoom in' }).click();
    expect(await zoom()).toBe(125);
    expect(await img.evaluate((e) => (e as HTMLImageElement).width)).toBe(80);
    await v.getByRole('button', { name: 'Zoom in' }).click();
    expect(await zoom()).toBe(150);
    await v.getByRole('button', { name: 'Zoom out' }).click();
    expect(await zoom()).toBe(125);
    const canvas = v.locator('.tdv-canvas');
    await canvas.hover();
    await win.page.keyboard.down('Control');
    await win.page.mouse.wheel(0, -100);
    await win.page.keyboard.up('Control');
    await win.waitFor(async () => (await zoom()) === 150, 'Ctrl+wheel to zoom in');
    await v.getByRole('button', { name: 'Fit to window' }).click();
    expect(await zoom()).toBe(100);
    await shotViewer(win, 'viewer-image-dark');
    await closeViewer();
  });

  it('runs HTML in a sandboxed frame that cannot reach the app', async () => {
    await win.page.evaluate(() => {
      const w = window as unknown as { __probes: Array<{ probe: string; result: string }> };
      w.__probes = [];
      window.addEventListener('message', (e) => { if (e.data && typeof e.data.probe === 'string') w.__probes.push(e.data); });
    });
    const v = await open('doc-probe');
    expect(await v.getAttribute('data-view')).toBe('html');
    const frame = v.locator('iframe');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    const src = (await frame.getAttribute('src'))!;
    expect(src).toMatch(/^\/artifact\//);
    const res = await win.context.request.get(`${serve.origin}${src}`);
    expect(res.headers()['content-security-policy']).toMatch(/sandbox allow-scripts/);
    expect(res.headers()['content-security-policy']).toMatch(/default-src 'none'/);

    const probes = async () => Object.fromEntries((await win.page.evaluate(() => (window as unknown as { __probes: Array<{ probe: string; result: string }> }).__probes)).map((p) => [p.probe, p.result]));
    await win.waitFor(async () => {
      const got = await probes();
      return ['parent-document', 'cookie', 'storage', 'websocket', 'fetch', 'origin'].every((k) => k in got);
    }, 'every probe to report', 20_000);
    const r = await probes();
    expect(r['parent-document']).toBe('blocked:SecurityError');
    expect(r.cookie).toBe('blocked:SecurityError');
    expect(r.storage).toMatch(/^blocked:/);
    expect(r.websocket).not.toBe('open');
    expect(r.websocket).toMatch(/^(error|blocked:)/);
    expect(r.fetch).toMatch(/^blocked:/);
    expect(r.origin).toBe('null');
    await shotViewer(win, 'viewer-html-dark');
    await closeViewer();
  });

  it("sends a decision brief's notes to the agent as lines, and ignores forged ones", async () => {
    const v = await open('brief');
    const frame = v.frameLocator('iframe');
    await frame.getByRole('button', { name: 'Prefer LRU' }).waitFor({ timeout: 20_000 });

    // A message from the window itself, not the brief's frame, is ignored.
    await win.page.evaluate(() => window.postMessage({ td: 'note', text: 'forged' }, '*'));

    const file = await lineReader();
    await frame.getByRole('button', { name: 'Prefer LRU' }).click();
    expect(await lineIn(file)).toBe(`[workbench:${tag}] note on surface brief — I prefer LRU.\n`);
    await win.waitFor(() => actionsLog().some((e) => e.surface === 'brief' && e.action === 'note' && e.comment === 'I prefer LRU.'), 'the note in actions.jsonl');
    expect(actionsLog().some((e) => e.comment === 'forged')).toBe(false);
    await expect.poll(() => v.locator('.tdv-status').innerText()).toContain(`note on surface brief — I prefer LRU.`);

    // A typed note with a line break and an escape arrives as one clean line.
    const file2 = await lineReader();
    await frame.locator('#note').fill('Cold start is fine.\n\u001b[2JReally.');
    await frame.getByRole('button', { name: 'Send note' }).click();
    expect(await lineIn(file2)).toBe(`[workbench:${tag}] note on surface brief — Cold start is fine.  [2JReally.\n`);
    // The brief takes the window's dark scheme (color-scheme: light dark) and sets no background:
    // its text must stand out from what shows behind it, the frame's (it was white on white).
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const text = rgb(await frame.locator('h1').evaluate((e) => getComputedStyle(e).color));
    const behind = rgb(await v.locator('iframe').evaluate((e) => getComputedStyle(e).backgroundColor));
    expect(contrast(text, behind), `the brief's heading ${text} on ${behind}`).toBeGreaterThan(7);
    await shotViewer(win, 'viewer-brief-dark');
    await closeViewer();
  });

  it('offers any other file as a download through serve', async () => {
    const v = await open('doc-bin');
    expect(await v.getAttribute('data-view')).toBe('external');
    const link = v.getByRole('link', { name: 'Download dump.bin' });
    const href = (await link.getAttribute('href'))!;
    const res = await win.context.request.get(`${serve.origin}${href}`);
    expect(res.status()).toBe(200);
    expect([...(await res.body())]).toEqual([0, 1, 2, 3, 255]);
    await shotViewer(win, 'viewer-external-dark');
    await closeViewer();

    // A web address is handed to the browser, never loaded inside the app.
    drop({ id: 'doc-web', kind: 'artifact', title: 'Dashboard', model: { location: 'https://example.com/dash?x=1', summary: 'Live numbers.' } });
    const w = await open('doc-web');
    expect(await w.getAttribute('data-view')).toBe('external');
    const out = w.getByRole('link', { name: 'Open https://example.com/dash?x=1 in the browser' });
    expect(await out.getAttribute('target')).toBe('_blank');
    expect(await out.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await w.locator('iframe').count()).toBe(0);
    await closeViewer();
  });

  it('opens a diagram large, drawn in a sandboxed frame', async () => {
    drop({ id: 'flow', kind: 'diagram', title: 'Request flow', model: { format: 'mermaid', source: 'sequenceDiagram\n  Agent->>Bench: surface\n  Bench-->>Agent: action line' } });
    await bench().locator('[data-shelf="Data"]').click();
    const c = bench().locator('[data-surface-id="flow"]');
    await c.waitFor({ timeout: 20_000 });
    // A person presses what they see: its first drawing grows the card and moves the button.
    await c.locator('iframe').waitFor({ timeout: 60_000 });
    await c.getByRole('button', { name: 'Open large: Request flow' }).click();
    const v = viewer();
    // The viewer's chunk on a busy machine (a CI run with the other test files beside it passed 30 s once).
    await v.waitFor({ timeout: 60_000 });
    expect(await v.getAttribute('data-view')).toBe('diagram');
    const frame = v.locator('iframe');
    await frame.waitFor({ timeout: 60_000 }); // Mermaid's chunk and its drawing, on a busy machine
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    expect(await v.frameLocator('iframe').locator('svg').evaluate((e) => e.textContent ?? '')).toContain('action line');
    await shotViewer(win, 'viewer-diagram-dark');
    await closeViewer();

    // Back on its shelf later, the card shows the drawing it had at once, at its height: no "Drawing…", no jump.
    await bench().locator('[data-shelf="Files"]').click();
    await c.waitFor({ state: 'detached' });
    await win.page.evaluate(() => {
      const w = window as unknown as { __drawing?: boolean };
      w.__drawing = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-surface-id="flow"] .td-diagram .tdb-meta')) w.__drawing = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await bench().locator('[data-shelf="Data"]').click();
    await c.locator('iframe').waitFor();
    expect(await win.page.evaluate(() => (window as unknown as { __drawing?: boolean }).__drawing)).toBe(false);

    // The drawing in the card opens it large too, as a thumbnail does (its frame would take the click otherwise).
    await c.locator('.tdb-diagram-preview').hover();
    await c.screenshot({ path: path.join(ARTIFACTS, 'card-diagram-hover-dark.png') });
    await c.locator('.tdb-diagram-preview').click();
    await viewer().waitFor({ timeout: 20_000 });
    expect(await viewer().getAttribute('data-view')).toBe('diagram');
    await closeViewer();
  });

  it('saves a screenshot of each viewer in light', async () => {
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1400, height: 900 } });
    try {
      await openBench(light);
      for (const [id, name] of [['doc-md', 'markdown'], ['doc-img', 'image'], ['doc-probe', 'html'], ['brief', 'brief'], ['doc-bin', 'external']] as const) {
        const v = await open(id, light);
        if (id === 'doc-img') await light.waitFor(() => v.locator('img').evaluate((e) => (e as HTMLImageElement).naturalWidth > 0), 'the image');
        if (id === 'brief') await v.frameLocator('iframe').getByRole('button', { name: 'Prefer LRU' }).waitFor();
        if (id === 'doc-probe') await v.frameLocator('iframe').locator('h1').waitFor();
        await shotViewer(light, `viewer-${name}-light`);
        await closeViewer(light);
      }
      await bench(light).locator('[data-shelf="Data"]').click();
      await bench(light).locator('[data-surface-id="flow"] iframe').waitFor({ timeout: 60_000 }); // drawn in this window's theme first
      await bench(light).locator('[data-surface-id="flow"] .tdb-diagram-preview').hover();
      await bench(light).locator('[data-surface-id="flow"]').screenshot({ path: path.join(ARTIFACTS, 'card-diagram-hover-light.png') });
      await bench(light).locator('[data-surface-id="flow"]').getByRole('button', { name: 'Open large: Request flow' }).click();
      await viewer(light).locator('iframe').waitFor({ timeout: 30_000 });
      await shotViewer(light, 'viewer-diagram-light');
      await closeViewer(light);
    } finally {
      await light.close();
    }
    expect(fs.existsSync(path.join(ARTIFACTS, 'viewer-markdown-light.png'))).toBe(true);
  });
});

/** WCAG's contrast ratio of two sRGB colours (0-255 each). */
function contrast(a: number[], b: number[]): number {
  const lum = ([r, g, bl]: number[]) => {
    const ch = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(r!) + 0.7152 * ch(g!) + 0.0722 * ch(bl!);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
