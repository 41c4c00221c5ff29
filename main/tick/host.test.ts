import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, EventName } from '../../preload/contract.ts';
import { Core } from '../core.ts';
import { PaneService } from '../panes/service.ts';
import { LOGIN_BASH, tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { TickHost, type TickHostOptions } from './host.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const COUNTER = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');
const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');

let state: ReturnType<typeof tempState>;
let core: Core;
let panes: PaneService;
let host: TickHost;
let events: Array<{ name: EventName; payload: unknown }>;
let wire: Array<{ id: string; dir: 'in' | 'out'; text: string }>;

function makeHost(opts: Partial<TickHostOptions> = {}): TickHost {
  host = new TickHost({ core, panes, env: state.env, wire: (id, dir, chunk) => wire.push({ id, dir, text: chunk.toString('utf8') }), ...opts });
  host.install(core);
  return host;
}

beforeEach(() => {
  state = tempState('td-tick-');
  core = new Core();
  events = [];
  wire = [];
  core.onEvent((name, payload) => events.push({ name, payload }));
  panes = new PaneService({ core, paths: statePaths(state.env), env: state.env, cwd: state.dir });
});

afterEach(async () => {
  await host?.dispose();
  panes.dispose();
  state.cleanup();
});

const approvals = () => events.filter((e) => e.name === 'approval.changed').map((e) => e.payload as ApprovalRequest);
const pendingApproval = () => waitFor(() => host.approvals.pending()[0], 'an approval request');
/** The wire, split into lines, per direction, in order. */
function lines(): string[] {
  const out: string[] = [];
  let buf = { in: '', out: '' };
  for (const w of wire) {
    buf[w.dir] += w.text;
    let nl: number;
    while ((nl = buf[w.dir].indexOf('\n')) >= 0) {
      out.push(`${w.dir === 'in' ? '→' : '←'} ${buf[w.dir].slice(0, nl)}`);
      buf[w.dir] = buf[w.dir].slice(nl + 1);
    }
  }
  return out;
}

/** Whether no process of this process group is left. */
function groupGone(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe('Appendix A through the real host, in a real pane', () => {
  it('replays the counter session message for message', async () => {
    makeHost();
    const opened = await host.open({ command: [process.execPath, COUNTER], cwd: state.dir, title: 'Counter' });
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    const id = opened.instance.id;
    expect(opened.instance).toMatchObject({ kind: 'example.counter', status: 'ready', paneId: opened.paneId });

    const call = host.call(id, 'increment', { amount: 2 }, { askingPaneId: 'pAsker' });
    const asked = await pendingApproval();
    expect(asked).toMatchObject({ instanceId: id, tool: 'increment', args: { amount: 2 }, revision: '1', description: 'Add an integer to the counter.', askingPaneId: 'pAsker', tickPaneId: opened.paneId, state: 'pending' });
    expect(await core.request('approval.answer', { approvalId: asked.id, approve: true }, { id: 'w' })).toEqual({ ok: true });
    expect(await call).toMatchObject({ ok: true, outcome: 'executed', result: { value: 2 }, approval: 'approved', revision: '1' });

    // A person types + in the Tick's view.
    expect(host.input(id, '+', undefined)).toEqual({ ok: true });
    await waitFor(() => host.session(id)?.latest?.seq === 2, 'the keyboard update');

    // A call prepared against an older catalog: the host refuses it itself and never sends it.
    expect(await host.call(id, 'increment', { amount: 1 }, { revision: '0' })).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, error: { code: -32004 } });

    expect(lines()).toEqual([
      '→ {"jsonrpc":"2.0","id":1,"method":"tick/describe","params":{}}',
      '← {"jsonrpc":"2.0","id":1,"result":{"protocol":3,"kind":"example.counter","title":"Counter","description":"Keyboard and tool calls share one value.","revision":"1","tools":[{"name":"increment","description":"Add an integer to the counter.","input_schema":{"type":"object","properties":{"amount":{"type":"integer"}},"required":["amount"],"additionalProperties":false},"mutates":true},{"name":"history","description":"Read the last 256 changes.","input_schema":{"type":"object","additionalProperties":false},"mutates":false}],"recover_with":"history","state":{"series":[{"path":"/recent","newest":"last"}]}}}',
      '→ {"jsonrpc":"2.0","id":2,"method":"tick/read","params":{}}',
      '← {"jsonrpc":"2.0","id":2,"result":{"seq":0,"data":{"value":0,"recent":[]}}}',
      '→ {"jsonrpc":"2.0","id":3,"method":"tick/call","params":{"tool":"increment","args":{"amount":2},"revision":"1"}}',
      '← {"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{"value":2,"recent":[{"seq":1,"value":2}]}}}',
      '← {"jsonrpc":"2.0","id":3,"result":{"value":2}}',
      '← {"jsonrpc":"2.0","method":"tick/update","params":{"seq":2,"data":{"value":3,"recent":[{"seq":1,"value":2},{"seq":2,"value":3}]}}}',
    ]);
    // The view shows the counter.
    await waitFor(() => panes.screenText(opened.paneId!).includes('Counter  3'), 'the counter drawn in its pane');
  });
});

describe('Ticks in panes', () => {
  it('starts the Tick under the launcher: environment, 120x30, stderr and /dev/tty in the pane, SIGWINCH on resize', async () => {
    makeHost();
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'good'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    const id = opened.instance.id;
    const first = await host.read(id);
    expect(first).toMatchObject({ ok: true, state: { data: { cols: 120, rows: 30, env: { instance: id.slice('hosted:'.length), term: 'xterm-256color', colorterm: 'truecolor', internal: [] }, stderrIsTty: true } } });
    expect(panes.get(opened.paneId!)).toMatchObject({ kind: 'tick', instanceId: id, cols: 120, rows: 30 });
    // The launcher leads the PTY's session; the Tick is in its foreground process group.
    const leader = panes.pid(opened.paneId!);
    expect((first as { state: { data: { proc: unknown } } }).state.data.proc).toEqual({ pgrp: leader, session: leader, tpgid: leader });
    await waitFor(() => panes.screenText(opened.paneId!).includes('scripted Tick: good'), 'the Tick drawing on /dev/tty');
    panes.resize(opened.paneId!, 100, 40);
    await waitFor(() => {
      const d = host.session(id)?.latest?.data as { cols?: number } | undefined;
      return d?.cols === 100;
    }, 'an update after SIGWINCH');
    expect(host.session(id)?.latest?.data).toMatchObject({ cols: 100, rows: 40 });
  });

  it('hiding and showing a view leaves the session running; closing the instance ends the process group and the pane', async () => {
    makeHost();
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'good'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    const id = opened.instance.id;
    expect(await core.request('tick.view', { instanceId: id, open: false }, { id: 'w' })).toEqual({ ok: true });
    expect(await host.call(id, 'slow', { ms: 1 })).toMatchObject({ ok: true });
    expect(host.view(id, true)).toEqual({ ok: true });
    const pid = panes.pid(opened.paneId!)!;
    expect(pid).toBeGreaterThan(0);
    await core.request('tick.close', { instanceId: id }, { id: 'w' });
    expect(() => process.kill(-pid, 0)).toThrow();
    expect(panes.get(opened.paneId!)).toBeUndefined();
    expect(host.list().find((i) => i.id === id)).toBeUndefined();
  });

  it('closing the Tick\'s pane ends the session and the Tick', async () => {
    makeHost();
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'good'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    const pid = panes.pid(opened.paneId!)!;
    const slow = host.call(opened.instance.id, 'slow', { ms: 5000 });
    await new Promise((r) => setTimeout(r, 100));
    panes.close(opened.paneId!);
    expect(await slow).toMatchObject({ ok: false, outcome: 'unknown' });
    await waitFor(() => host.get(opened.instance.id)?.status === 'ended', 'the instance ended');
    expect(host.get(opened.instance.id)?.reason).toBe('the Tick\'s pane was closed');
    await waitFor(() => groupGone(pid), 'the process group gone', 5000);
  });

  it('a Tick that ignores SIGTERM is killed after the grace', async () => {
    makeHost({ limits: { killGraceMs: 300 } });
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'stubborn'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    const pid = panes.pid(opened.paneId!)!;
    await host.close(opened.instance.id);
    await waitFor(() => groupGone(pid), 'the process group gone');
  });

  it('a failed initialization reports the reason and the screen, kills the Tick, and lists nothing', async () => {
    makeHost();
    const before = panes.list().length;
    const r = await host.open({ command: [process.execPath, SCRIPTED, 'describe-bad-schema'], cwd: state.dir });
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/not a valid JSON Schema/) });
    if (r.ok) return;
    expect(r.screen).toContain('scripted: about to send a bad schema');
    expect(r.screen!.length).toBeLessThanOrEqual(256);
    expect(host.list().filter((i) => i.id.startsWith('hosted:'))).toEqual([]);
    expect(panes.list().length).toBe(before);
    expect(events.some((e) => e.name === 'tick.changed' && (e.payload as { status: string }).status === 'failed')).toBe(true);
  });

  it('a command that cannot be resolved fails before any pane is made', async () => {
    makeHost();
    const r = await core.request('tick.open', { command: ['no-such-tick-program-xyz'], cwd: state.dir }, { id: 'w' });
    expect(r).toEqual({ ok: false, error: 'the Tick command "no-such-tick-program-xyz" was not found on PATH; install it or give its absolute path' });
    expect(panes.list()).toEqual([]);
    expect(await host.open({ command: [], cwd: state.dir })).toMatchObject({ ok: false, error: expect.stringMatching(/nonempty list/) });
    expect(await host.open({ command: ['sh'], cwd: '/no/such/dir' })).toMatchObject({ ok: false, error: expect.stringMatching(/does not exist/) });
  });

  it('a Tick that exits ends the instance, with the reason', async () => {
    makeHost();
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'exit'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    const r = await host.call(opened.instance.id, 'go', {});
    expect(r).toMatchObject({ ok: false, outcome: 'unknown', sent: true });
    await waitFor(() => host.get(opened.instance.id)?.status === 'ended', 'the instance ended');
    expect(host.get(opened.instance.id)?.reason).toBe('the Tick exited with code 3');
  });
});

describe('approvals', () => {
  async function openScripted(): Promise<string> {
    const opened = await host.open({ command: [process.execPath, SCRIPTED, 'good'], cwd: state.dir });
    if (!opened.ok) throw new Error(opened.error);
    return opened.instance.id;
  }

  it('a refused call is never sent; non-mutating calls need no approval', async () => {
    makeHost();
    const id = await openScripted();
    expect(await host.call(id, 'slow', { ms: 1 })).toMatchObject({ ok: true, approval: 'not_needed' });
    const call = host.call(id, 'poke', { n: 5 });
    const asked = await pendingApproval();
    expect(host.approvals.answer(asked.id, false)).toEqual({ ok: true });
    expect(await call).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, approval: 'refused', reason: expect.stringMatching(/refused/) });
    expect(host.approvals.answer(asked.id, true)).toEqual({ ok: false, error: 'that approval is no longer pending (it was refused)' });
    expect(lines().some((l) => l.includes('"tool":"poke"'))).toBe(false);
    expect(approvals().map((a) => a.state)).toEqual(['pending', 'refused']);
    expect(events).toContainEqual({ name: 'notify', payload: expect.objectContaining({ title: 'Approval needed: poke on Scripted' }) });
  });

  it('an unanswered approval times out and the call is not executed', async () => {
    makeHost({ limits: { approvalMs: 300 } });
    const id = await openScripted();
    const r = await host.call(id, 'poke', { n: 1 });
    expect(r).toMatchObject({ ok: false, outcome: 'not_executed', approval: 'timed_out', sent: false });
    expect(approvals().at(-1)).toMatchObject({ state: 'timed_out', timeoutSeconds: 0 });
  });

  it('a catalog change invalidates a pending approval, and the call is never sent', async () => {
    makeHost();
    const id = await openScripted();
    const poke = host.call(id, 'poke', { n: 1 });
    const pokeAsk = await pendingApproval();
    const bump = host.call(id, 'bump_revision', {});
    const bumpAsk = await waitFor(() => host.approvals.pending().find((a) => a.tool === 'bump_revision'), 'the second approval');
    host.approvals.answer(bumpAsk.id, true);
    expect(await bump).toMatchObject({ ok: true, result: { revision: '2' } });
    expect(await host.describe(id, true)).toMatchObject({ ok: true, descriptor: { revision: '2' } });
    expect(await poke).toMatchObject({ ok: false, outcome: 'not_executed', approval: 'invalidated', sent: false, error: { code: -32004 } });
    expect(host.approvals.answer(pokeAsk.id, true).ok).toBe(false);
    expect(lines().some((l) => l.includes('"tool":"poke"'))).toBe(false);
  });

  it('a call whose client gives up while it waits for approval is never sent', async () => {
    makeHost();
    const id = await openScripted();
    const ac = new AbortController();
    const call = host.call(id, 'poke', { n: 1 }, { signal: ac.signal });
    const asked = await pendingApproval();
    ac.abort();
    expect(await call).toMatchObject({ ok: false, outcome: 'not_executed', approval: 'invalidated', sent: false, reason: expect.stringMatching(/cancelled/) });
    expect(host.approvals.answer(asked.id, true).ok).toBe(false);
    expect(lines().some((l) => l.includes('"tool":"poke"'))).toBe(false);
  });

  it('refuses mutating calls from MCP while "MCP writes" is off', async () => {
    makeHost({ mcpWrites: () => false });
    const id = await openScripted();
    expect(await host.call(id, 'poke', { n: 1 }, { viaMcp: true })).toMatchObject({ ok: false, outcome: 'not_executed', reason: expect.stringMatching(/MCP writes/) });
    expect(await host.call(id, 'slow', { ms: 1 }, { viaMcp: true })).toMatchObject({ ok: true });
    expect(host.approvals.pending()).toEqual([]);
  });
});

describe('shell: instances', () => {
  it('lists plain panes, reads their screen and types plain text and named keys', async () => {
    makeHost();
    const pane = panes.create({ command: LOGIN_BASH, cwd: state.dir });
    const id = `shell:${pane.id}`;
    expect(host.list()).toContainEqual(expect.objectContaining({ id, kind: 'shell', status: 'ready', paneId: pane.id }));
    expect(host.input(id, 'echo td-$((6*7))', ['enter'])).toEqual({ ok: true });
    await waitFor(() => {
      const s = host.screen(id);
      return s.ok && s.screen.includes('td-42');
    }, 'the echo on screen');
    expect(host.input(id, 'rm -rf x\r', undefined)).toMatchObject({ ok: false, error: expect.stringMatching(/control character/) });
    expect(host.input(id, 'x', ['f13'])).toMatchObject({ ok: false, error: expect.stringMatching(/not a key/) });
    expect(await host.call(id, 'x', {})).toMatchObject({ ok: false, outcome: 'not_executed', reason: expect.stringMatching(/plain terminal pane/) });
  });
});
