/**
 * `terminal-delight service stop` with a window open (issue 35, item 3), end to end: the real
 * serve, the real service it starts, Chromium. The window says in one sentence that the
 * service was stopped and offers to start it; no service starts meanwhile; a click starts
 * one, behind the same URL, and the window's pane comes back.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STOPPED_BY_COMMAND } from '../main/service/service.ts';
import { runCli } from '../main/panes/testing.ts';
import { axeViolations } from './harness.ts';
import { browserForFile, servedWindow } from './fixture.ts';

let browser: Browser;
const cleanups = browserForFile((b) => (browser = b));

/** The stopped sentence as the window shows it: its command as code, without the backticks. */
const SHOWN = STOPPED_BY_COMMAND.replaceAll('`', '');

/** Why a service runs when none should: the old one still going, or a new one, and who started it (serve's stderr, the service's log). */
function whoRuns(pid: number | undefined, old: number | undefined, stderr: string): string {
  if (pid === undefined) return '';
  const which = pid === old ? `the old service (pid ${pid}) still holds its lock after \`service stop\` said stopped` : `a new service (pid ${pid}; the stopped one was ${old}) runs although the stop was on purpose`;
  return `${which}; serve's stderr and the service's log:\n${stderr.slice(-4000)}`;
}

describe('a service stopped on purpose', () => {
  it('is said in the window in one sentence, with a button that starts it again; nothing starts it meanwhile', async () => {
    const { serve, win, paneId } = await servedWindow(browser, cleanups, { theme: 'light', viewport: { width: 1200, height: 700 } });
    const first = serve.servicePid();
    expect(await runCli(['service', 'stop'], serve.env)).toMatchObject({ code: 0, stdout: 'stopped\n' });

    const line = win.page.getByTestId('service-stopped');
    await line.waitFor();
    expect(await line.innerText()).toContain(SHOWN);
    expect(await line.locator('code').allInnerTexts()).toEqual(['terminal-delight service stop']);
    await win.screenshot('service-stopped-light');
    expect(await axeViolations(win, 'the stopped line, light')).toEqual([]);
    // A few seconds on, still no service: serve holds the door and waits.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(serve.servicePid(), whoRuns(serve.servicePid(), first, serve.stderr())).toBeUndefined();
    expect(await line.innerText()).toContain(SHOWN);
    // A reload meanwhile says the same (the page from serve, which holds the door), before any hello could succeed.
    await win.page.reload();
    await line.waitFor();
    expect(await line.innerText()).toContain(SHOWN);
    await win.screenshot('service-stopped-reloaded');
    expect(serve.servicePid(), whoRuns(serve.servicePid(), first, serve.stderr())).toBeUndefined();
    // The same page in the dark theme, loaded again while the service is stopped.
    await win.page.emulateMedia({ colorScheme: 'dark' });
    await win.page.goto(win.page.url().replace('theme=light', 'theme=dark'));
    await line.waitFor();
    expect(await line.innerText()).toContain(SHOWN);
    expect(await win.page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await win.screenshot('service-stopped-dark');
    expect(await axeViolations(win, 'the stopped line, dark')).toEqual([]);

    await line.getByRole('button', { name: 'Start the service' }).click();
    await win.waitFor(() => !!serve.servicePid() && serve.servicePid() !== first, 'a new service', 30_000);
    await line.waitFor({ state: 'detached', timeout: 30_000 });
    // The pane comes back under its id (a shell: resumed as the service starts).
    expect(await win.paneIds()).toEqual([paneId]);
    await win.waitForPrompt(paneId, 30_000);
    await win.close();
  });
});
