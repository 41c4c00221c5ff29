/**
 * No pane's processes hold a PTY master (issue 35, item 1): node-pty opens each master
 * without close-on-exec, so before the fix every process the core started (the next pane's
 * login shell, an agent, a Tick and whatever they started) inherited the masters of the
 * panes opened before it, and could type into them. Real login shells, the real Claude Code
 * CLI, the real Tick launcher with a sample Tick, all started through the contract.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { PaneInfo } from '../../preload/contract.ts';
import { type App, createApp } from '../app.ts';
import { tempState, waitFor } from './testing.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');
const COUNTER = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');

let app: App | undefined;
let state: ReturnType<typeof tempState> | undefined;

afterEach(async () => {
  await app?.dispose();
  app = undefined;
  state?.cleanup();
});

/** Every process below `pid` (Linux /proc), depth first. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** The descriptors of `pid` that are PTY masters (/dev/ptmx, or /dev/pts/ptmx where devpts has its own). */
function ptyMasters(pid: number): string[] {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  return fds.filter((fd) => {
    try {
      return /^\/dev\/(pts\/)?ptmx$/.test(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false;
    }
  });
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

const client = { id: 'window' };

it.runIf(process.platform === 'linux')('no process of a shell, an agent or a Tick holds a PTY master, and no pane can type into another', async () => {
  state = tempState('td-ptyleak-');
  const env = { ...state.env, SHELL: '/bin/bash', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-test-not-a-key' };
  app = await createApp({ shell: 'serve', env, cwd: state.dir, fresh: true });
  // Two login shells, as a person's panes start (bash -l with its profile).
  const victim = (await app.core.request('pane.create', {}, client)) as PaneInfo;
  const attacker = (await app.core.request('pane.create', { splitOf: victim.id, direction: 'right' }, client)) as PaneInfo;
  // The real Claude Code CLI as an agent pane, and the counter Tick through its launcher.
  const agent = (await app.core.request('agent.new', { command: [CLAUDE], splitOf: victim.id, direction: 'down' }, client)) as PaneInfo;
  const tick = await app.core.request('tick.open', { command: [process.execPath, COUNTER], cwd: state.dir }, client);
  expect(tick).toMatchObject({ ok: true });
  // One more shell after them all: the newest pane would hold every master before it.
  const last = (await app.core.request('pane.create', { splitOf: attacker.id, direction: 'down' }, client)) as PaneInfo;

  const panes = app.panes;
  for (const p of [victim, attacker, last]) await waitFor(() => /\$ $/m.test(panes.screenText(p.id)), `pane ${p.id}'s prompt`);
  // The agent has started (its screen shows it) and the Tick answered describe (status ready).
  await waitFor(() => panes.screenText(agent.id).trim().length > 0, 'Claude Code drawing its first screen', 60_000);
  await waitFor(async () => ((await app!.core.request('tick.list', {}, client)) as { status: string }[]).some((i) => i.status === 'ready'), 'the Tick ready');

  // The attack from the issue, in the newest shell: any inherited master gets a command typed into it.
  panes.write(last.id, `for f in /proc/$$/fd/*; do [ "$(readlink $f)" = /dev/ptmx ] && eval "printf 'echo INJ''ECTED\\r' >&\${f##*/}"; done; echo tried-$((40+2))\r`);
  await waitFor(() => /^tried-42$/m.test(panes.screenText(last.id)), 'the attack loop to finish');
  // Anything typed into the victim's master would be read before what the test types now.
  panes.write(victim.id, 'echo after-$((40+2))\r');
  await waitFor(() => /^after-42$/m.test(panes.screenText(victim.id)), "the victim's own echo");
  for (const p of [victim, attacker, agent]) expect(panes.screenText(p.id)).not.toContain('INJECTED');
  const tree = descendants(process.pid);
  const seen = tree.map(commandLine).join('\n');
  // The processes checked are there: both shells, the agent's, the launcher and its Tick.
  expect(seen).toMatch(/bash/);
  expect(seen).toMatch(/claude/);
  expect(seen).toMatch(/launcher\.mjs/);
  expect(seen).toMatch(/counter\.mjs/);
  const holders = tree.map((pid) => ({ pid, cmd: commandLine(pid), masters: ptyMasters(pid) })).filter((h) => h.masters.length > 0);
  expect(holders).toEqual([]);

}, 90_000);

it.runIf(process.platform === 'linux')('a pane that ended leaves no copy of its terminal open in any other process', async () => {
  state = tempState('td-ptyleak-');
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
  const first = (await app.core.request('pane.create', {}, client)) as PaneInfo;
  await waitFor(() => /\$ $/m.test(app!.panes.screenText(first.id)), 'the first prompt');
  const tty = fs.readlinkSync(`/proc/${app.panes.pid(first.id)}/fd/0`);
  const second = (await app.core.request('pane.create', { splitOf: first.id, direction: 'right' }, client)) as PaneInfo;
  await waitFor(() => /\$ $/m.test(app!.panes.screenText(second.id)), 'the second prompt');
  const secondPid = app.panes.pid(second.id)!;
  await app.core.request('pane.close', { paneId: first.id }, client);
  // The first terminal's slave is gone once no one holds its master: the second shell must not.
  await waitFor(() => !fs.existsSync(tty), `${tty} to go once its pane closed`);
  expect(ptyMasters(secondPid)).toEqual([]);
});
