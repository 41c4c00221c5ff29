/**
 * A real agent, a Tick and a worktree on another machine, from this window (issue 33): the real Claude
 * Code (pinned in package.json) installed on the far machine (an sshd the test starts,
 * main/machines/sshd-testing.ts, with its own HOME and state), its agent channel installed
 * there with `terminal-delight hooks` run through the real ssh, as its person would, and
 * pointed at the scripted model server by that machine's environment. Started with
 * "+ Agent" On that machine in the near window (the real serve shell in Chromium); the
 * model asks for a Bash tool call; its permission card shows on the far pane's bench in
 * the near window; Approve there reaches the waiting hook on the far machine: the command
 * runs (its file is in the far folder), the far machine's actions.jsonl records the
 * answer, and the agent goes on to its next turn. Then, from the same window: End Tick
 * of a far Tick ends it there, Close pane of another hides its view and it runs on there;
 * a far worktree's Changes card shows its status, commits and merges it there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectService, stopService } from '../main/service/client.ts';
import { makeRepo } from '../main/worktrees/testing.ts';
import { farPaneFolder, startFarMachine, type FarMachine, stopFarMachine } from '../main/machines/sshd-testing.ts';
import { BIN, card, claudeConfig, claudeEnv, endLeftovers, headerStatus, prompt, shot } from './agent-cli.ts';
import { launchBrowser, openWindow, ROOT, startServe, type Serve, type TdPage } from './harness.ts';
import { ModelServer } from './model-server.ts';

let model: ModelServer;
let m: FarMachine;
let serve: Serve;
let browser: Browser;
let win: TdPage;

beforeAll(async () => {
  model = await new ModelServer().start();
  m = await startFarMachine('agent-box', { env: claudeEnv(model.url) });
  // Claude Code installed on the far machine (on its PATH), its first-run screens done there.
  fs.symlinkSync(path.join(BIN, 'claude'), path.join(m.far.dir, 'bin', 'claude'));
  claudeConfig(m.farEnv.HOME!, [m.farEnv.HOME!]);
  // The agent channel installed there, by the far machine's own terminal-delight, through ssh.
  const hooks = await m.ssh('terminal-delight hooks --agent claude --no-mcp');
  if (hooks.code !== 0) throw new Error(`terminal-delight hooks on the far machine failed: ${hooks.stderr}`);
  expect(fs.readFileSync(path.join(m.farEnv.HOME!, '.claude', 'settings.json'), 'utf8')).toContain('tdac-hook.sh');
  serve = await startServe({ env: { TD_SSH_CONFIG: m.near.env.TD_SSH_CONFIG! } });
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1500, height: 950 } });
  const conn = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home }, client: 'cli', start: false });
  expect((await conn.request('machine.connect', { target: m.alias })).state).toBe('connected');
  conn.close();
}, 120_000);

afterAll(async () => {
  await win?.close().catch(() => undefined);
  await browser?.close();
  await serve?.close();
  if (m) {
    await stopService({ env: m.farEnv, endPanes: true }).catch(() => undefined);
    endLeftovers(m.farEnv.HOME!);
  }
  await stopFarMachine(m);
  await model?.close();
});

describe('an agent on another machine', () => {
  it('asks a permission there; Approve in this window lets the tool run there, recorded there, and the agent goes on', async () => {
    // "+ Agent", On the far machine: its Claude Code, started there.
    const before = new Set(await win.paneIds());
    await win.page.getByRole('button', { name: '+ Agent' }).click();
    const picker = win.page.getByRole('dialog', { name: 'Start an agent' });
    await picker.getByRole('combobox').selectOption(m.alias);
    const row = picker.locator('[role="option"][data-agent="claude"]:not(.not-installed)');
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    let id = '';
    await win.waitFor(async () => {
      id = (await win.paneIds()).find((p) => !before.has(p)) ?? '';
      return id !== '';
    }, 'the far agent pane', 30_000);
    expect(id.startsWith(`${m.alias}/`)).toBe(true);
    expect(await win.header(id).getByTestId('pane-machine').textContent()).toBe(m.alias);
    await win.waitForText(id, /for shortcuts|❯/, 90_000);
    if ((await win.page.locator(`[data-pane-id="${id}"] .pane-bench`).count()) === 0) await win.header(id).getByRole('button', { name: 'Open bench' }).click();
    const folder = await farPaneFolder(m, id.split('/')[1]!);

    // The model asks for a Bash tool call: the far agent's permission prompt is a card here.
    const marker = path.join(m.far.dir, 'approved-from-near.txt');
    const n = model.main().length;
    model.script(
      { tool: 'Bash', input: { command: `echo approved > ${marker}`, description: 'Write a marker on the far machine' } },
      { text: 'Wrote the marker on the far machine.' },
    );
    await prompt(win, id, 'write the marker');
    await model.mainRequest(n, 90_000, 'the request for the Bash call');
    const perm = await card(win, id, { prefix: 'permission-' }, 'the far agent\'s permission card', 90_000).catch(async (e: Error) => {
      const inbound = path.join(folder, 'inbound.jsonl');
      throw new Error(`${e.message}; the far pane shows:\n${(await win.text(id)).split('\n').slice(-25).join('\n')}\nits events: ${fs.existsSync(inbound) ? fs.readFileSync(inbound, 'utf8') : '(none)'}`);
    });
    expect(await perm.locator.innerText()).toContain(`Allow Bash: echo approved > ${marker}?`);
    await win.waitFor(async () => (await headerStatus(win, id)) === 'needs you', 'the far agent\'s header to say "needs you"', 30_000);
    expect(fs.existsSync(marker)).toBe(false);
    await shot(perm.locator, 'far-agent-permission-dark');
    await win.screenshot('far-agent-permission-window-dark');

    // Approve, here: the far hook gets the answer, the command runs there, and the agent goes on.
    await perm.locator.getByRole('button', { name: /^Approve/ }).click();
    const next = await model.mainRequest(n + 1, 90_000, 'the request after the approved Bash call');
    const messages = next.body.messages as Array<{ content: unknown }>;
    const last = messages.at(-1)!.content as Array<Record<string, unknown>>;
    expect(last.find((c) => c.type === 'tool_result')).toMatchObject({ is_error: false });
    expect(fs.readFileSync(marker, 'utf8')).toBe('approved\n');
    const recorded = fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8').split('\n').filter((l) => l.includes(`"surface":"${perm.id}"`));
    expect(recorded).toHaveLength(1);
    expect(JSON.parse(recorded[0]!)).toMatchObject({ type: 'action', surface: perm.id, action: 'approve' });
    await win.waitFor(async () => /answered here: allow/.test(await perm.locator.innerText()), 'the card to say answered here', 30_000);
    await win.waitForText(id, /Wrote the marker on the far machine/, 60_000);
    await win.waitFor(async () => (await headerStatus(win, id)) === 'done', 'the far agent\'s header to say done', 60_000);
    await shot(perm.locator, 'far-agent-permission-answered-dark');
  }, 300_000);

  it('ends a far Tick with End Tick in its header here, and hides another (Close pane: its view goes, the Tick runs on there)', async () => {
    const home = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home }, client: 'cli', start: false });
    const far = await connectService({ env: m.farEnv, client: 'cli', start: false });
    const counter = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');
    const open = async (title: string) => {
      const r = await home.request('tick.open', { machine: m.alias, command: [process.execPath, counter], cwd: m.far.dir, title });
      if (!r.ok) throw new Error(r.error);
      expect(r.paneId.startsWith(`${m.alias}/`)).toBe(true);
      await win.header(r.paneId).getByTestId('tick-badge').waitFor({ timeout: 30_000 });
      return { id: r.paneId, instance: r.instance.id };
    };
    const farStatus = async (instance: string) => (await far.request('tick.list', {})).find((i) => i.id === instance)?.status;
    try {
      const ended = await open('Counter to end');
      const hidden = await open('Counter to hide');
      await win.waitFor(async () => (await farStatus(ended.instance)) === 'ready', 'the far Tick to be ready', 30_000);
      await win.screenshot('far-ticks-dark');

      // End Tick: the instance is the far machine's; it ends there, and its pane leaves this window.
      await win.header(ended.id).getByRole('button', { name: 'End Tick' }).click();
      await win.waitFor(async () => !(await win.paneIds()).includes(ended.id), 'the ended far Tick\'s pane to go', 30_000);
      await win.waitFor(async () => (await farStatus(ended.instance)) !== 'ready', 'the Tick to end on the far machine', 30_000);
      expect(await win.page.locator('.notice').allTextContents()).not.toContainEqual(expect.stringContaining('Ending the Tick failed'));

      // Close pane on a far Tick hides its view here; the Tick runs on, on its machine.
      const close = win.header(hidden.id).getByRole('button', { name: 'Close pane' });
      expect(await close.getAttribute('title')).toMatch(/Hide this view.*keeps running/);
      await close.click();
      await win.waitFor(async () => !(await win.paneIds()).includes(hidden.id), 'the hidden far Tick\'s pane to go', 30_000);
      expect(await farStatus(hidden.instance)).toBe('ready');
    } finally {
      home.close();
      far.close();
    }
  }, 120_000);

  it('reviews a far worktree from its Changes card here: its status, Commit and Merge run on its machine', async () => {
    // A repository on the far machine, and its git identity there.
    fs.writeFileSync(path.join(m.farEnv.HOME!, '.gitconfig'), '[user]\n\tname = Ada Far\n\temail = ada@far.example\n[init]\n\tdefaultBranch = main\n');
    const repo = makeRepo(path.join(m.far.dir, 'repo'), { ...process.env, HOME: m.farEnv.HOME, GIT_CONFIG_NOSYSTEM: '1' });
    const home = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home }, client: 'cli', start: false });
    const made = await home.request('worktree.new', { machine: m.alias, repo, name: 'far-fix', command: ['/bin/bash'] });
    home.close();
    if (!made.ok) throw new Error(made.error);
    const id = made.pane.id;
    expect(id.startsWith(`${m.alias}/`)).toBe(true);
    expect(made.worktree.path).toBe(`${repo}.worktrees/far-fix`);
    await win.waitForText(id, /\$ $/m, 30_000);
    await win.typeLine(id, 'printf "far notes\\n" > notes.md && sed -i "s/^line 2$/LINE TWO/" a.txt && echo edited-$((4+4))');
    await win.waitForText(id, /^edited-8$/m, 30_000);

    if ((await win.page.locator(`[data-pane-id="${id}"] .pane-bench`).count()) === 0) await win.header(id).getByRole('button', { name: 'Open bench' }).click();
    const bench = win.page.locator(`[data-bench-pane="${id}"]`);
    await bench.locator('[data-shelf="Review"]').click();
    const changes = bench.locator('[data-surface-id="worktree-changes"]');
    await win.waitFor(async () => (await changes.locator('.tdb-path').allInnerTexts()).join(' ') === 'a.txt notes.md', 'the far worktree\'s Changes card', 60_000);
    // Its status, asked of the far machine: what is uncommitted there.
    await win.waitFor(async () => /2 uncommitted/.test(await changes.locator('.tdb-finish').innerText()), 'the far status: 2 uncommitted', 30_000);
    await changes.getByRole('button', { name: 'Commit…' }).click();
    await changes.getByRole('textbox', { name: 'Commit message for far-fix' }).fill('Far notes and line two');
    await changes.getByRole('button', { name: 'Commit (Ctrl+Enter)' }).click();
    await win.waitFor(async () => /Committed [0-9a-f]{8} on far-fix\./.test(await changes.locator('.tdb-done').innerText().catch(() => '')), 'the commit on the far machine', 30_000);
    await win.screenshot('far-worktree-committed-dark');
    await changes.getByRole('button', { name: 'Merge into main' }).click();
    await win.waitFor(async () => /Merged into main/.test(await changes.locator('.tdb-done').innerText().catch(() => '')), 'the merge on the far machine', 30_000);
    expect(await changes.locator('[role="alert"]').count()).toBe(0);
    // On the far machine: main has the commit, with the far machine's git identity.
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, HOME: m.farEnv.HOME, GIT_CONFIG_NOSYSTEM: '1' } });
    expect(git('log', '-1', '--format=%s|%an', 'main').trim()).toBe('Far notes and line two|Ada Far');
    expect(git('show', 'main:notes.md')).toBe('far notes\n');
  }, 120_000);
});
