/**
 * Agents outlive the window (docs/design/service.md), end to end: the real serve relay,
 * the real per-user service it starts, real PTYs, Chromium. A window's process killed
 * leaves its panes running and the next window finds them, output printed meanwhile
 * included; two windows share one service; "Quit and end all panes" ends them; a service
 * killed with -9 comes back with every pane ended and resumable, nothing recorded lost
 * or doubled, and resume reproduces argv, environment and cwd; a stale lock and a dead
 * socket left by a crash do not stop the next start.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Surface } from '../preload/contract.ts';
import { compileCacheDir } from '../main/compile-cache.ts';
import { listeningHolders, personDotfiles, waitFor } from '../main/panes/testing.ts';
import { connectService, type ServiceConnection } from '../main/service/client.ts';
import { processAlive } from '../main/panes/proc.ts';
import { ARTIFACTS, ROOT, axeViolations, openWindow, startServe, tempDir, type Serve } from './harness.ts';
import { browserForFile, servedWindow } from './fixture.ts';

let browser: Browser;
const cleanups = browserForFile((b) => (browser = b));

function serviceEnv(serve: Pick<Serve, 'stateDir' | 'home' | 'env'>): NodeJS.ProcessEnv {
  // serve's own environment (every XDG folder in the test's home), as a command in its panes has.
  return { ...serve.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home, TD_SOCKET: path.join(serve.stateDir, 'app.sock'), SHELL: '/bin/bash', TD_TEST: '1' };
}

/** A command line client of the same service (as `terminal-delight` commands are). */
async function cli(serve: Serve): Promise<ServiceConnection> {
  const c = await connectService({ env: serviceEnv(serve), client: 'cli', start: false, cwd: serve.cwd });
  cleanups.push(() => c.close());
  return c;
}


const ticks = (text: string, pid: number): number[] => [...text.matchAll(new RegExp(`^tick (\\d+) pid=${pid}$`, 'gm'))].map((m) => Number(m[1]));

describe('agents outlive the window', () => {
  it('keeps a pane running when the window\'s process dies; a new window finds the same process and what it printed meanwhile', async () => {
    const served = await servedWindow(browser, cleanups);
    const { serve, paneId } = served;
    let win = served.win;
    await win.typeLine(paneId, `bash -c 'i=0; while :; do i=$((i+1)); echo "tick $i pid=$$"; sleep 0.2; done'`);
    await win.waitForText(paneId, /^tick 3 pid=\d+$/m);
    const pid = Number(/^tick \d+ pid=(\d+)$/m.exec(await win.text(paneId))![1]);
    const before = Math.max(...ticks(await win.text(paneId), pid));

    // The window goes away: its browser page and serve, the process that carried it, killed.
    await win.close();
    await serve.kill();
    const closedFor = 2_000;
    await new Promise((r) => setTimeout(r, closedFor));
    expect(processAlive(pid)).toBe(true);

    const again = await startServe({ reuse: serve });
    cleanups.push(() => again.kill());
    win = await openWindow(browser, again);
    expect(await win.paneIds()).toEqual([paneId]);
    await win.waitFor(async () => Math.max(0, ...ticks(await win.text(paneId, 400), pid)) > before + closedFor / 200, 'ticks printed while no window was open, then live ones');
    const seen = ticks(await win.text(paneId, 400), pid);
    // Every tick from before the window closed to now is on screen, none missing: the same process all along.
    const from = seen.indexOf(before);
    expect(from).toBeGreaterThanOrEqual(0);
    const run = seen.slice(from);
    expect(run).toEqual(run.map((_, i) => before + i));
    expect(processAlive(pid)).toBe(true);
    await win.screenshot('service-reattached');
    await win.close();
    // What the service compiled as it started is kept for the next start (main/compile-cache.ts), in the user's own cache folder.
    const cache = compileCacheDir(serviceEnv(serve));
    await waitFor(() => fs.existsSync(cache) && fs.readdirSync(cache, { recursive: true }).length > 1, 'the compile cache written', 15_000);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
  });

  it('serves two windows at once, through two relays: typing in one shows in the other', async () => {
    const serve = await startServe();
    cleanups.push(() => serve.close());
    const second = await startServe({ reuse: serve });
    cleanups.push(() => second.kill());
    const a = await openWindow(browser, serve);
    const [paneId] = (await a.paneIds()) as [string];
    await a.waitForPrompt(paneId);
    const b = await openWindow(browser, second, { theme: 'light' });
    expect(await b.paneIds()).toEqual([paneId]);
    await a.typeLine(paneId, 'echo "from-a-$((20+22))"');
    await b.waitForText(paneId, /^from-a-42$/m);
    await b.typeLine(paneId, 'echo "from-b-$((40+2))"');
    await a.waitForText(paneId, /^from-b-42$/m);
    // A split made in one window appears in the other.
    await a.focusTerminal(paneId);
    await a.page.keyboard.press('Control+Shift+D');
    await b.waitFor(async () => (await b.paneIds()).length === 2, 'the split in the second window');
    await a.close();
    await b.close();
  });

  it('"Quit and end all panes" asks, listing what runs, then ends every pane and the service', async () => {
    const { serve, win, paneId } = await servedWindow(browser, cleanups, { theme: 'dark', viewport: { width: 1200, height: 760 } });
    const c = await cli(serve);
    const marker = `${300 + Math.floor(Math.random() * 1000) / 1000}`;
    const other = await c.request('pane.create', { command: ['/bin/sh', '-c', `trap "" HUP; exec sleep ${marker}`], splitOf: paneId, direction: 'right' });
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'the second pane');
    const pids = (await c.request('service.info', {})).running.map((r) => r.paneId);
    expect(pids.sort()).toEqual([paneId, other.id].sort());
    const shellPid = Number((await (async () => {
      // The door's token (TD_DOOR, serve to the service it starts) never reaches a pane.
      await win.typeLine(paneId, 'echo "shell=$$ door=${TD_DOOR:-none}"');
      await win.waitForText(paneId, /^shell=\d+ door=/m);
      expect(await win.text(paneId)).toMatch(/^shell=\d+ door=none$/m);
      return /^shell=(\d+) door=none$/m.exec(await win.text(paneId))![1];
    })()));
    const servicePid = serve.servicePid()!;
    // serve bound the door's port and handed the socket to the service it started
    // (main/door/handover.ts): the service alone holds it; serve's copy is closed, and
    // neither shell inherited one.
    expect(listeningHolders(serve.port)).toEqual([servicePid]);

    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Control+Shift+Q');
    const dialog = win.page.getByRole('alertdialog', { name: 'Quit and end all panes?' });
    await dialog.waitFor();
    await win.waitFor(async () => (await dialog.locator('.quit-list li').count()) === 2, 'both running panes listed');
    expect(await dialog.locator('.quit-program').allInnerTexts()).toEqual(expect.arrayContaining(['bash', 'sleep']));
    // Each with its folder, once: after a title that is not already it ("sh · /tmp/…"), not again after one that is.
    for (const row of await dialog.locator('.quit-title').allInnerTexts()) expect(row.split(path.basename(serve.cwd)).length - 1, row).toBe(1);
    await win.page.screenshot({ path: path.join(ARTIFACTS, 'service-quit-dark.png') });
    expect(await axeViolations(win, 'the quit dialog, dark')).toEqual([]);
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1200, height: 760 } });
    await light.focusTerminal(paneId);
    await light.page.keyboard.press('Control+Shift+Q');
    const lightDialog = light.page.getByRole('alertdialog', { name: 'Quit and end all panes?' });
    await light.waitFor(async () => (await lightDialog.locator('.quit-list li').count()) === 2, 'both running panes listed (light)');
    await light.page.screenshot({ path: path.join(ARTIFACTS, 'service-quit-light.png') });
    expect(await axeViolations(light, 'the quit dialog, light')).toEqual([]);
    await light.close();
    // Escape keeps everything running.
    await win.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(processAlive(servicePid)).toBe(true);

    await win.page.keyboard.press('Control+Shift+Q');
    await dialog.getByRole('button', { name: 'End 2 panes and quit' }).click();
    await win.page.getByText('Terminal Delight has quit and every pane has ended.').waitFor();
    await win.waitFor(() => !processAlive(servicePid) && !processAlive(shellPid), 'the service and the shell to end');
    // The sleep ignored SIGHUP: it got SIGTERM after it.
    const sleepGone = spawnSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' }).stdout.trim();
    expect(sleepGone).toBe('');
    const session = JSON.parse(fs.readFileSync(path.join(serve.stateDir, 'terminal-delight', 'session.json'), 'utf8'));
    expect(session.ended.reason).toBe('you quit and ended all panes');
    expect(fs.existsSync(path.join(serve.stateDir, 'terminal-delight', 'run', 'service.lock'))).toBe(false);
    await win.close();
  });
});

describe('when the service itself dies', () => {
  it('comes back with every pane ended and resumable; nothing recorded is lost or doubled; resume reproduces argv, env and cwd', async () => {
    // Screens are kept every 200 ms here (30 s by default), so the crash below has one to show.
    const serve = await startServe({ env: { FOO: 'one', TD_SCREEN_SAVE_MS: '200' } });
    cleanups.push(() => serve.close());
    const out = tempDir('agentish');
    cleanups.push(() => fs.rmSync(out, { recursive: true, force: true }));
    const work = path.join(serve.cwd, 'the project');
    fs.mkdirSync(work);
    let win = await openWindow(browser, serve);
    const [shellId] = (await win.paneIds()) as [string];
    await win.waitForPrompt(shellId);
    const c = await cli(serve);
    const argv = [process.execPath, path.join(ROOT, 'e2e', 'fixtures', 'agentish.mjs'), '--out', out, '--name', 'agent one'];
    const agent = await c.request('pane.create', { command: argv, cwd: work, splitOf: shellId, direction: 'right' });
    await win.waitForText(agent.id, 'agentish ready');
    const folder = path.join(serve.stateDir, 'terminal-delight', 'surfaces', (await c.request('app.hello', {})).session, agent.id);
    await win.waitFor(() => fs.readdirSync(folder).filter((f) => /^s-\d+\.json$/.test(f)).length >= 5, 'a few surfaces from the agent');

    // A person approves one decision on the bench…
    await win.header(agent.id).getByRole('button', { name: 'Open bench' }).click();
    const bench = win.page.locator(`[data-pane-id="${agent.id}"] .td-bench`);
    await bench.locator('[data-surface-id="s-0002"]').waitFor();
    // Cards keep arriving above it: click without waiting for the list to stand still.
    await bench.locator('[data-surface-id="s-0002"]').getByRole('button', { name: /^Approve/ }).dispatchEvent('click');
    await win.waitFor(() => fs.existsSync(path.join(folder, 'actions.jsonl')), 'the answer recorded');
    // The service keeps the agent's screen as it changes (a crash cannot save it).
    await win.waitFor(() => { try { return fs.readFileSync(path.join(folder, '.last-screen.ans'), 'utf8').includes('agentish ready'); } catch { return false; } }, 'the agent\'s screen kept');
    // …and the service is killed while the agent goes on writing surfaces. (serve first, so no
    // window starts a new service before the test does.)
    await win.close();
    await serve.kill();
    const servicePid = serve.servicePid()!;
    process.kill(servicePid, 'SIGKILL');
    await win.waitFor(() => !processAlive(servicePid), 'the killed service to be gone');
    const whoamiBefore = fs.readdirSync(out).filter((f) => f.startsWith('whoami-'));
    expect(whoamiBefore).toHaveLength(1);
    const first = JSON.parse(fs.readFileSync(path.join(out, whoamiBefore[0]), 'utf8'));
    // The agent's PTY is gone with the service: it stops (SIGHUP), and writes no more.
    await win.waitFor(() => !processAlive(first.pid), 'the agent to stop with its PTY');
    const surfaceFiles = fs.readdirSync(folder).filter((f) => /^s-\d+\.json$/.test(f)).sort();
    const actionsBefore = fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8');

    // Start again, from a window whose environment differs (FOO=two): the records carry the pane's own.
    const again = await startServe({ reuse: serve, env: { FOO: 'two' } });
    cleanups.push(() => again.kill());
    win = await openWindow(browser, again);
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'both panes back in the layout');
    await win.page.locator(`[data-pane-id="${agent.id}"] [data-testid="ended-overlay"]`).waitFor();
    const c2 = await cli(again);
    const hello = await c2.request('app.hello', {});
    const back = hello.panes.find((p) => p.id === agent.id)!;
    expect(back.status).toBe('exited');
    expect(back.ended?.reason).toBe('the service stopped unexpectedly (killed or crashed)');
    // It shows what it showed before the crash, under the ended note.
    await win.waitForText(agent.id, 'agentish ready');
    expect(back.ended?.resumeArgv).toEqual(argv);
    // The shell came back by itself (resumeAtStart: shells), with its own environment again;
    // a new pane gets the new service's.
    const shell = hello.panes.find((p) => p.id === shellId)!;
    expect(shell.status).toBe('running');
    await win.waitForPrompt(shellId);
    await win.typeLine(shellId, 'echo "foo=$FOO"');
    await win.waitForText(shellId, /^foo=one$/m);
    const fresh = await c2.request('pane.create', { command: ['/bin/sh', '-c', 'echo "new=$FOO"; exec sleep 30'], splitOf: shellId, direction: 'down' });
    await win.waitForText(fresh.id, /^new=two$/m);
    await c2.request('pane.close', { paneId: fresh.id });
    await win.page.locator(`[data-pane-id="${agent.id}"] [data-testid="ended-overlay"]`).waitFor();
    await win.page.getByTestId('ended-summary').waitFor();
    await win.screenshot('service-ended-dark');
    expect(await axeViolations(win, 'an ended pane and the service bar, dark')).toEqual([]);

    // Nothing recorded is lost or doubled: every surface file once on the bench, the answer once.
    const list = await c2.request('surface.list', { paneId: agent.id });
    const ids = list.filter((s: Surface) => s.kind === 'decision').map((s: Surface) => s.id).sort();
    expect(ids).toEqual(surfaceFiles.map((f) => f.replace(/\.json$/, '')));
    expect(fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8')).toBe(actionsBefore);
    expect(actionsBefore.trim().split('\n')).toHaveLength(1);
    expect(list.find((s: Surface) => s.id === 's-0002')!.acted.map((a) => a.action)).toEqual(['approve']);
    // An answer to the ended agent is refused in one sentence, and nothing is recorded.
    expect(await c2.request('surface.act', { paneId: agent.id, surfaceId: 's-0003', action: 'approve' })).toEqual({ ok: false, error: 'the pane ended with the service — resume it, then act again; nothing was sent' });
    expect(fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8')).toBe(actionsBefore);

    // Resume: the same argv, environment (FOO=one, its own), cwd and pane.
    await win.page.locator(`[data-pane-id="${agent.id}"] [data-testid="ended-overlay"]`).getByRole('button', { name: 'Resume' }).click();
    await win.waitFor(() => fs.readdirSync(out).filter((f) => f.startsWith('whoami-')).length === 2, 'the resumed agent to say who it is');
    const second = JSON.parse(fs.readFileSync(path.join(out, fs.readdirSync(out).filter((f) => f.startsWith('whoami-') && f !== whoamiBefore[0])[0]), 'utf8'));
    expect(second.argv).toEqual(first.argv);
    expect(second.cwd).toBe(work);
    expect(second.foo).toBe('one');
    expect(second.paneId).toBe(agent.id);
    expect(second.pid).not.toBe(first.pid);
    // Its width: the pane's in this window (fitted before it resumed; the height changes as the bar above goes).
    expect(second.cols).toBe((await win.size(agent.id))!.cols);
    expect(second.rows).toBeGreaterThan(10);
    await win.page.locator(`[data-pane-id="${agent.id}"] [data-testid="ended-overlay"]`).waitFor({ state: 'detached' });
    // The answer was typed once, before the kill, never again.
    const lines = fs.existsSync(path.join(out, 'lines.log')) ? fs.readFileSync(path.join(out, 'lines.log'), 'utf8').trim().split('\n').filter(Boolean) : [];
    expect(lines.filter((l) => l.includes('approve on surface s-0002')).length).toBeLessThanOrEqual(1);
    await win.close();
  });

  it('starts over a stale lock and a dead socket file left by a crash', async () => {
    const stateDir = tempDir('state');
    const run = path.join(stateDir, 'terminal-delight', 'run');
    fs.mkdirSync(run, { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(stateDir, 'terminal-delight'), 0o700);
    // A lock naming a process that is gone…
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(run, 'service.lock'), JSON.stringify({ pid: Number(dead.stdout.trim()), startTicks: 1, version: '0.0.1', startedAt: '2026-01-01T00:00:00.000Z' }));
    // …and a socket file whose listener was killed.
    const sock = path.join(run, 'service.sock');
    await new Promise<void>((resolve) => {
      const p = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.kill(process.pid, 'SIGKILL'))`]);
      p.on('exit', () => resolve());
    });
    expect(fs.lstatSync(sock).isSocket()).toBe(true);
    await expect(new Promise((resolve, reject) => {
      const s = net.createConnection(sock);
      s.on('connect', () => resolve('connected'));
      s.on('error', (e) => reject(e));
    })).rejects.toThrow(/ECONNREFUSED/);
    const home = tempDir('home');
    const cwd = tempDir('cwd');
    personDotfiles(home, 'td$ ');
    const serve = await startServe({ reuse: { stateDir, home, cwd } });
    cleanups.push(() => serve.close());
    const win = await openWindow(browser, serve);
    const [paneId] = (await win.paneIds()) as [string];
    await win.waitForPrompt(paneId);
    const lock = JSON.parse(fs.readFileSync(path.join(run, 'service.lock'), 'utf8'));
    expect(lock.pid).toBe(serve.servicePid());
    expect(processAlive(lock.pid)).toBe(true);
    await win.close();
  });
});

describe('a window meeting a service of another version', () => {
  it('names both versions and restarts the service on a click; the panes come back through resume', async () => {
    const dir = tempDir('version');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const versionFile = path.join(dir, 'version');
    fs.writeFileSync(versionFile, '0.0.9');
    const serve = await startServe({ env: { TD_TEST_VERSION_FILE: versionFile } });
    cleanups.push(() => serve.close());
    const win = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1200, height: 700 } });
    const [paneId] = (await win.paneIds()) as [string];
    await win.waitForPrompt(paneId);
    const line = win.page.getByTestId('service-version');
    await line.waitFor();
    const mine = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(await line.innerText()).toContain(`Terminal Delight's service is version 0.0.9, this window is ${mine}: restart the service to update (your panes come back through resume).`);
    await win.screenshot('service-version-light');
    expect(await axeViolations(win, 'the version line, light')).toEqual([]);
    const before = serve.servicePid();
    // The next service is this build's own version.
    fs.rmSync(versionFile);
    await line.getByRole('button', { name: 'Restart service' }).click();
    await win.waitFor(() => !!serve.servicePid() && serve.servicePid() !== before, 'a new service');
    await line.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await win.paneIds()).toEqual([paneId]);
    await win.waitForPrompt(paneId, 30_000);
    await win.close();
  });
});
