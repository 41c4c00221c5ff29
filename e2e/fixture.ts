/**
 * What an e2e file starts from, set up before its tests and closed after them (Vitest's
 * beforeAll and afterAll, so this module is for test files only: the benchmarks import
 * harness.ts, which needs no Vitest).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, openWindow, startServe, type Serve, type TdPage, type WindowOptions } from './harness.ts';

/** A file's serve, its browser and the window open in it. */
export interface FileWindow {
  serve: Serve;
  browser: Browser;
  win: TdPage;
}

/**
 * One serve, one browser and one window (the dark theme unless `opts` says otherwise) for the
 * tests of a file: started before them and given to `use`, closed after them.
 */
export function windowForFile(use: (w: FileWindow) => unknown, opts: WindowOptions = { theme: 'dark' }): void {
  let serve: Serve | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    serve = await startServe();
    browser = await launchBrowser();
    await use({ serve, browser, win: await openWindow(browser, serve, opts) });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.close();
  });
}

/** What a test leaves to be closed after the file's tests: each runs, last first, whether or not another fails. */
export type Cleanups = Array<() => Promise<void> | void>;

/** One browser for the tests of a file, given to `use`; the cleanups they push run after them, then the browser closes. */
export function browserForFile(use: (browser: Browser) => unknown): Cleanups {
  const cleanups: Cleanups = [];
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    use(browser);
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
    await browser?.close();
  });
  return cleanups;
}

/** A serve of the test's own (closed with `cleanups`) and a window on it in `browser`, its first pane at the prompt. */
export async function servedWindow(browser: Browser, cleanups: Cleanups, opts: WindowOptions = {}): Promise<{ serve: Serve; win: TdPage; paneId: string }> {
  const serve = await startServe();
  cleanups.push(() => serve.close());
  const win = await openWindow(browser, serve, opts);
  const [paneId] = (await win.paneIds()) as [string];
  await win.waitForPrompt(paneId);
  return { serve, win, paneId };
}
