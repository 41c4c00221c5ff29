/**
 * `terminal-delight service stop` with a window open (issue 35, item 3), end to end: the real
 * serve, the real service it starts, Chromium. The window says in one sentence that the
 * service was stopped and offers to start it; no service starts meanwhile; a click starts
 * one, behind the same URL, and the window's pane comes back.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOPPED_BY_COMMAND } from '../main/service/service.ts';
import { ROOT, axeViolations, launchBrowser, openWindow, startServe } from './harness.ts';

let browser: Browser;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  await browser?.close();
});

/** Why a service runs when none should: the old one still going, or a new one, and who started it (serve's stderr, the service's log). */
function whoRuns(pid: number | undefined, old: number | undefined, stderr: string): string {
  if (pid === undefined) return '';
  const which = pid === old ? `the old service (pid ${pid}) still holds its lock after \`service stop\` said stopped` : `a new service (pid ${pid}; the stopped one was ${old}) runs although the stop was on purpose`;
  return `${which}; serve's stderr and the service's log:\n${stderr.slice(-4000)}`;
}

describe('a service stopped on purpose', () => {
  it('is said in the window in one sentence, with a button that starts it again; nothing starts it meanwhile', async () => {
    const serve = await startServe();
    cleanups.push(() => serve.close());
    const win = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1200, height: 700 } });
    const [paneId] = (await win.paneIds()) as [string];
    await win.waitForPrompt(paneId);
    const first = serve.servicePid();
    const env = { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home, TD_SOCKET: path.join(serve.stateDir, 'app.sock'), SHELL: '/bin/bash' };
    const stdout = await new Promise<string>((resolve, reject) => execFile(path.join(ROOT, 'bin', 'terminal-delight'), ['service', 'stop'], { env }, (err, out) => (err ? reject(err) : resolve(out))));
    expect(stdout).toBe('stopped\n');

    const line = win.page.getByTestId('service-stopped');
    await line.waitFor();
    expect(await line.innerText()).toContain(STOPPED_BY_COMMAND);
    await win.screenshot('service-stopped-light');
    expect(await axeViolations(win, 'the stopped line, light')).toEqual([]);
    // A few seconds on, still no service: serve holds the door and waits.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(serve.servicePid(), whoRuns(serve.servicePid(), first, serve.stderr())).toBeUndefined();
    expect(await line.innerText()).toContain(STOPPED_BY_COMMAND);
    // A reload meanwhile says the same (the page from serve, which holds the door), before any hello could succeed.
    await win.page.reload();
    await line.waitFor();
    expect(await line.innerText()).toContain(STOPPED_BY_COMMAND);
    await win.screenshot('service-stopped-reloaded');
    expect(serve.servicePid(), whoRuns(serve.servicePid(), first, serve.stderr())).toBeUndefined();

    await line.getByRole('button', { name: 'Start the service' }).click();
    await win.waitFor(() => !!serve.servicePid() && serve.servicePid() !== first, 'a new service', 30_000);
    await line.waitFor({ state: 'detached', timeout: 30_000 });
    // The pane comes back under its id (a shell: resumed as the service starts).
    expect(await win.paneIds()).toEqual([paneId]);
    await win.waitForPrompt(paneId, 30_000);
    await win.close();
  });
});
