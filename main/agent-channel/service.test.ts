/**
 * The agent channel with real files and the real hook process: a question written by the
 * hook becomes a card, acting on the card writes the answer the waiting hook returns.
 * The pane and surface services are small stand-ins that keep to their interfaces
 * (main/services.ts); the channel itself is the real thing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionRecord, AgentStatus, Events, PaneInfo, Surface, SurfaceRoute } from '../../preload/contract.ts';
import { Core } from '../core.ts';
import type { CreatePaneOptions, PaneServiceApi, SurfaceServiceApi } from '../services.ts';
import { readEvents, sampleInput, startHook, until } from '../../scripts/hooks/hook-runner.ts';
import { AgentChannel, installAgentChannel, STATE_FILE } from './service.ts';

type Interceptor = Parameters<SurfaceServiceApi['intercept']>[0];

class Panes {
  readonly session = 'sess1';
  readonly panes = new Map<string, PaneInfo>();
  readonly created: CreatePaneOptions[] = [];
  private readonly createdListeners: Array<(p: PaneInfo) => void> = [];
  private readonly root: string;
  constructor(root: string) { this.root = root; }
  add(id: string): PaneInfo {
    const pane: PaneInfo = { id, tag: 'abcd1234', kind: 'agent', title: 'claude', cwd: this.root, command: ['claude'], status: 'running', cols: 80, rows: 24, benchOpen: true, unseen: 0 };
    this.panes.set(id, pane);
    for (const l of this.createdListeners) l(pane);
    return pane;
  }
  list() { return [...this.panes.values()]; }
  get(id: string) { return this.panes.get(id); }
  folder(id: string) { return path.join(this.root, 'terminal-delight', 'surfaces', this.session, id); }
  patch(id: string, patch: Partial<PaneInfo>) { Object.assign(this.panes.get(id)!, patch); }
  create(opts: CreatePaneOptions) { this.created.push(opts); const p = this.add(`p${this.created.length}`); p.command = opts.command ?? []; if (opts.cwd) p.cwd = opts.cwd; return p; }
  onCreated(l: (p: PaneInfo) => void) { this.createdListeners.push(l); return () => {}; }
  onRemoved() { return () => {}; }
  onExit() { return () => {}; }
  onOutput() { return () => {}; }
}

class Surfaces {
  readonly docs = new Map<string, Record<string, unknown>>();
  readonly typed: string[] = [];
  readonly transcripts: Array<[string, string]> = [];
  lastSentAt = 0;
  private readonly interceptors: Interceptor[] = [];
  ingest(_paneId: string, doc: unknown, route: SurfaceRoute) {
    // the transcript route hands over a block's text
    const d = (typeof doc === 'string' ? JSON.parse(doc) : doc) as Record<string, unknown>;
    this.docs.set(d.id as string, d);
    if (route !== 'person') this.lastSentAt = Date.now();
    return {};
  }
  sentSince(_paneId: string, since: string) { return this.lastSentAt > 0 && this.lastSentAt >= Date.parse(since); }
  watchTranscript(paneId: string, p: string) { this.transcripts.push([paneId, p]); }
  intercept(fn: Interceptor) { this.interceptors.push(fn); return () => {}; }
  act(paneId: string, surfaceId: string, action: string, target?: string, comment?: string): { ok: true; record: ActionRecord } | { ok: false; error: string } {
    const d = this.docs.get(surfaceId);
    if (!d) return { ok: false, error: 'no such surface' };
    const surface = { id: surfaceId, kind: d.kind, model: d.model } as Surface;
    // as the real service does: every interceptor checks first (a refusal writes nothing), then applies
    for (const fn of this.interceptors) {
      const r = fn(paneId, surface, action, target, comment, 'check');
      if (r.handled && r.error) return { ok: false, error: r.error };
    }
    for (const fn of this.interceptors) {
      const r = fn(paneId, surface, action, target, comment, 'apply');
      if (r.handled) return r.error ? { ok: false, error: r.error } : { ok: true, record: { action, target, comment, at: new Date().toISOString() } };
    }
    this.typed.push(`${action} on surface ${surfaceId}`);
    return { ok: true, record: { action, at: new Date().toISOString() } };
  }
  model(id: string) { return this.docs.get(id)?.model as Record<string, unknown> | undefined; }
}

let root: string;
let panes: Panes;
let surfaces: Surfaces;
let core: Core;
let channel: AgentChannel;
let notes: Array<Events['notify']>;
let folder: string;
let hookEnv: Record<string, string | undefined>;

function start(opts: { idleAfterMs?: number } = {}) {
  // a window (re)starting: a new core, the same files
  core = new Core();
  core.onEvent((name, payload) => { if (name === 'notify') notes.push(payload as Events['notify']); });
  channel = installAgentChannel({
    core, panes: panes as unknown as PaneServiceApi, surfaces: surfaces as unknown as SurfaceServiceApi,
    env: { HOME: root }, pollMs: 50, idleAfterMs: opts.idleAfterMs, uuid: () => '11111111-2222-3333-4444-555555555555',
  });
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'td-agent-'));
  panes = new Panes(root);
  surfaces = new Surfaces();
  notes = [];
  panes.add('pane1');
  folder = panes.folder('pane1');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'bench.json'), JSON.stringify({ open: true, at: new Date().toISOString() }));
  hookEnv = { PATH: process.env.PATH, TD_NODE: process.execPath, HOME: root, XDG_STATE_HOME: root, TD_SESSION: 'sess1', TD_PANE_ID: 'pane1', TD_QUESTION_WAIT_S: '60', TD_QUESTION_POLL_MS: '50' };
  start();
});
afterEach(async () => {
  channel.dispose();
  await core.dispose();
  fs.rmSync(root, { recursive: true, force: true });
});

const status = (): AgentStatus | undefined => panes.get('pane1')?.agent?.status;
const append = (e: Record<string, unknown>) => fs.appendFileSync(path.join(folder, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', at: new Date().toISOString(), ...e })}\n`);

describe('questions answered from the bench', () => {
  it('a question from the real hook becomes a card; choosing an option hands the answer back to the hook', async () => {
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), hookEnv);
    const card = await until(() => surfaces.docs.get('question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB'), 20_000, 'question card');
    expect(card).toMatchObject({
      kind: 'question', title: 'Claude Code asks: Scheme',
      model: { question: 'Which colour scheme should the dark theme start from?', options: [{ name: 'Solarized', detail: 'Warm, low contrast' }, { name: 'Nord', detail: 'Cool blues' }, { name: 'Plain black' }], multiple: false, state: 'waiting' },
    });
    expect(status()).toBe('blocked');
    expect(notes.at(-1)).toMatchObject({ title: 'claude needs you', paneId: 'pane1' });

    expect(surfaces.act('pane1', 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB', 'choose', 'Nord')).toMatchObject({ ok: true });
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB.json'), 'utf8')))
      .toEqual({ answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } });
    const r = await run.done;
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse', permissionDecision: 'allow',
      updatedInput: { answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } },
    });
    expect(surfaces.typed).toEqual([]);
    expect(surfaces.model('question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB')).toMatchObject({ state: 'answered_here', answer: 'Nord' });
    await until(() => status() === 'working', 20_000, 'working after the answer');
    // a second answer is refused, never applied twice
    expect(surfaces.act('pane1', 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB', 'choose', 'Solarized')).toMatchObject({ ok: false, error: expect.stringMatching(/answered already/) });
  });

  it('several questions: the answer goes once every card is answered; a written answer counts', async () => {
    const run = startHook(sampleInput('pre-tool-use-ask-user-question-two.json'), hookEnv);
    await until(() => surfaces.docs.get('question-toolu_01Tw0QuestionsAtOnce99-2'), 20_000, 'second card');
    expect(surfaces.act('pane1', 'question-toolu_01Tw0QuestionsAtOnce99-2', 'choose', 'Editor, Login')).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(folder, 'answers', 'toolu_01Tw0QuestionsAtOnce99.json'))).toBe(false);
    expect(surfaces.act('pane1', 'question-toolu_01Tw0QuestionsAtOnce99-1', 'answer', undefined, 'In the footer')).toMatchObject({ ok: true });
    const out = JSON.parse((await run.done).stdout);
    expect(out.hookSpecificOutput.updatedInput.answers).toEqual({ 'Where should the toggle live?': 'In the footer', 'Which pages need the theme first?': 'Editor, Login' });
  });

  it('an answer after the hook timed out is refused and the card says the agent asks in its terminal', async () => {
    const r = await startHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...hookEnv, TD_QUESTION_WAIT_S: '0.3' }).done;
    expect(r.stdout).toBe('');
    await until(() => surfaces.model('question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB')?.state === 'timed_out', 20_000, 'timed out');
    const res = surfaces.act('pane1', 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB', 'choose', 'Nord');
    expect(res).toMatchObject({ ok: false, error: expect.stringMatching(/asks in its terminal now/) });
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB.json'), 'utf8'))).toMatchObject({ closed: 'timeout' });
    expect(surfaces.typed).toEqual([]);
    expect(status()).toBe('blocked');
  });

  it('a question answered in the terminal after the wait: working again', async () => {
    await startHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...hookEnv, TD_QUESTION_WAIT_S: '0.2' }).done;
    await until(() => surfaces.model('question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB')?.state === 'timed_out', 20_000, 'timed out');
    expect(status()).toBe('blocked');
    await startHook(sampleInput('post-tool-use-ask-user-question.json'), hookEnv).done;
    await until(() => status() === 'working', 20_000, 'working after the terminal answer');
  });

  it('the race: the hook closed the wait before the window saw it; the late answer is refused', async () => {
    // the window is slow: the hook asks and gives up before the channel reads anything
    channel.dispose();
    await startHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...hookEnv, TD_QUESTION_WAIT_S: '0.2' }).done;
    fs.rmSync(path.join(folder, STATE_FILE), { force: true });
    // A restarted window with the state from before the question (offset 0).
    fs.writeFileSync(path.join(folder, STATE_FILE), JSON.stringify({ v: 1, offset: 0, pending: {}, finished: {} }));
    start();
    channel.pollAll();
    expect(surfaces.model('question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB')).toMatchObject({ state: 'timed_out' });
    expect(surfaces.act('pane1', 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB', 'choose', 'Nord')).toMatchObject({ ok: false });
  });
});

describe('permission prompts', () => {
  it('approve allows, through the real hook', async () => {
    const run = startHook(sampleInput('permission-request-bash.json'), hookEnv);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    expect(surfaces.docs.get(id)).toMatchObject({ kind: 'decision', model: { question: 'Allow Bash: rm -rf build?' } });
    expect(status()).toBe('blocked');
    expect(surfaces.act('pane1', id, 'approve', 'allow')).toMatchObject({ ok: true });
    expect(JSON.parse((await run.done).stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it('reject denies with the comment as the message', async () => {
    const run = startHook(sampleInput('permission-request-bash.json'), hookEnv);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    expect(surfaces.act('pane1', id, 'reject', undefined, 'Keep the build folder.')).toMatchObject({ ok: true });
    expect(JSON.parse((await run.done).stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'Keep the build folder.' });
  });

  it('other actions (comment) are left to the surfaces service', async () => {
    append({ type: 'permission', id: 'perm-x', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.docs.get('permission-perm-x'), 20_000, 'card');
    surfaces.act('pane1', 'permission-perm-x', 'comment', undefined, 'hm');
    expect(surfaces.typed).toEqual(['comment on surface permission-perm-x']);
  });
});

describe('answers given anywhere', () => {
  const postToolUse = () => ({ ...sampleInput('permission-request-bash.json'), hook_event_name: 'PostToolUse', tool_use_id: 'toolu_ran1', tool_response: { stdout: '' } });

  it('a permission answered in the terminal (the tool ran): the card says so, the waiting hook exits at once, the status leaves blocked', async () => {
    const run = startHook(sampleInput('permission-request-bash.json'), { ...hookEnv, TD_QUESTION_WAIT_S: '540' });
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    await until(() => status() === 'blocked', 20_000, 'blocked');
    // Claude Code never ends the hook when the person answers its own prompt; the tool runs.
    await startHook(postToolUse(), hookEnv).done;
    const r = await run.done;
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(surfaces.model(id)).toMatchObject({ state: 'answered_in_terminal', answer: 'allow', state_note: "Answered in Claude Code's terminal." });
    expect(status()).toBe('working');
    expect(surfaces.act('pane1', id, 'reject')).toMatchObject({ ok: false, error: expect.stringMatching(/answered in the agent's terminal/) });
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', `${id.slice('permission-'.length)}.json`), 'utf8'))).toMatchObject({ retired: 'answered_in_terminal' });
    expect(readEvents(folder).filter((e) => e.type === 'unanswered' || e.type === 'answer')).toEqual([]);
  });

  it('Esc (the agent ends the hook): cancelled, and the status goes back to idle', async () => {
    const run = startHook(sampleInput('permission-request-bash.json'), hookEnv);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    await until(() => status() === 'blocked', 20_000, 'blocked');
    run.child.kill('SIGTERM');
    await run.done;
    await until(() => surfaces.model(id)?.state === 'cancelled', 20_000, 'cancelled');
    await until(() => status() === 'idle', 20_000, 'idle');
    expect(surfaces.act('pane1', id, 'approve')).toMatchObject({ ok: false, error: expect.stringMatching(/cancelled in the terminal/) });
  });

  it('two answers never both land: once the terminal settled it, a click is refused and nothing is written over', async () => {
    append({ type: 'permission', id: 'perm-race', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.docs.get('permission-perm-race'), 20_000, 'card');
    append({ type: 'tool', id: 't-race', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.model('permission-perm-race')?.state === 'answered_in_terminal', 20_000, 'answered in the terminal');
    expect(surfaces.act('pane1', 'permission-perm-race', 'approve')).toMatchObject({ ok: false });
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'answers', 'perm-race.json'), 'utf8'))).toMatchObject({ retired: 'answered_in_terminal' });
  });

  it('the bench said deny, but the tool ran: the terminal answered first, and the card says so', async () => {
    append({ type: 'permission', id: 'perm-late', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.docs.get('permission-perm-late'), 20_000, 'card');
    expect(surfaces.act('pane1', 'permission-perm-late', 'reject')).toMatchObject({ ok: true });
    expect(surfaces.model('permission-perm-late')).toMatchObject({ state: 'answered_here', answer: 'deny' });
    append({ type: 'tool', id: 't-late', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.model('permission-perm-late')?.state === 'answered_in_terminal', 20_000, 'corrected');
    expect(surfaces.model('permission-perm-late')).toMatchObject({ answer: 'allow' });
  });

  it('the bench answered, but the agent ended the wait before the hook handed it over: cancelled', async () => {
    append({ type: 'permission', id: 'perm-esc', tool_name: 'Bash', tool_input: { command: 'ls' } });
    await until(() => surfaces.docs.get('permission-perm-esc'), 20_000, 'card');
    expect(surfaces.act('pane1', 'permission-perm-esc', 'approve')).toMatchObject({ ok: true });
    append({ type: 'unanswered', id: 'u-esc', of: 'perm-esc', reason: 'cancelled' });
    await until(() => surfaces.model('permission-perm-esc')?.state === 'cancelled', 20_000, 'cancelled');
    await until(() => status() === 'idle', 20_000, 'idle');
  });

  it('a permission the agent\'s hook cannot answer (Gemini CLI): no answer from the bench, retired when the tool runs', async () => {
    append({ type: 'prompt', id: 'p-g', agent: 'gemini', text: 'go' });
    append({ type: 'permission', id: 'perm-g', agent: 'gemini', session_id: 'g1', tool_name: 'Shell', tool_input: { command: 'ls' }, answerable: false });
    await until(() => surfaces.docs.get('permission-perm-g'), 20_000, 'card');
    expect(surfaces.model('permission-perm-g')).toMatchObject({ state: 'waiting', answerable: false, state_note: expect.stringContaining('answer in its terminal') });
    expect(status()).toBe('blocked');
    expect(surfaces.act('pane1', 'permission-perm-g', 'approve')).toMatchObject({ ok: false, error: expect.stringContaining('answer in its terminal') });
    expect(fs.existsSync(path.join(folder, 'answers', 'perm-g.json'))).toBe(false);
    append({ type: 'tool', id: 't-g', agent: 'gemini', session_id: 'g1', tool_name: 'run_shell_command', tool_input: { command: 'ls' } });
    await until(() => surfaces.model('permission-perm-g')?.state === 'answered_in_terminal', 20_000, 'retired');
    expect(surfaces.docs.get('permission-perm-g')).toMatchObject({ title: 'Permission: Shell' });
    expect(status()).toBe('working');
  });
});

describe('hooks that go away, and prompts asked in the terminal', () => {
  // Codex's PermissionRequest, as Codex 0.171.0 sends it for an escalated exec_command
  const codexPermission = { hook_event_name: 'PermissionRequest', session_id: 'cx1', turn_id: 't1', cwd: '/w', tool_name: 'Bash', tool_input: { command: 'touch marker.txt', description: 'Write a marker file' } };
  const codexRan = { hook_event_name: 'PostToolUse', session_id: 'cx1', turn_id: 't1', cwd: '/w', tool_name: 'Bash', tool_input: { command: 'touch marker.txt' }, tool_use_id: 'call_1', tool_response: '' };

  it('the agent kills its waiting hook (SIGKILL: Codex on Esc): the card says cancelled and the status goes back to idle', async () => {
    const run = startHook(codexPermission, hookEnv, ['--agent', 'codex']);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    await until(() => status() === 'blocked', 20_000, 'blocked');
    expect(readEvents(folder).find((e) => e.type === 'permission')).toMatchObject({ hook_pid: run.child.pid });
    run.child.kill('SIGKILL');
    await run.done;
    await until(() => surfaces.model(id)?.state === 'cancelled', 20_000, 'cancelled');
    await until(() => status() === 'idle', 20_000, 'idle');
    expect(surfaces.act('pane1', id, 'approve')).toMatchObject({ ok: false, error: expect.stringMatching(/cancelled in the terminal/) });
  });

  it('a bench answer the hook never handed over (killed before it read it) is corrected to cancelled', async () => {
    const run = startHook(codexPermission, { ...hookEnv, TD_QUESTION_POLL_MS: '600000' }, ['--agent', 'codex']);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    // Stopped before the answer exists, so it cannot read it first on a slow machine.
    run.child.kill('SIGSTOP');
    expect(surfaces.act('pane1', id, 'approve')).toMatchObject({ ok: true });
    expect(surfaces.model(id)).toMatchObject({ state: 'answered_here' });
    run.child.kill('SIGKILL');
    await run.done;
    await until(() => surfaces.model(id)?.state === 'cancelled', 20_000, 'corrected to cancelled');
  });

  it('a hook that handed the answer over and exited stays answered here', async () => {
    const run = startHook(codexPermission, hookEnv, ['--agent', 'codex']);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    expect(surfaces.act('pane1', id, 'reject', undefined, 'Not now.')).toMatchObject({ ok: true });
    expect(JSON.parse((await run.done).stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'Not now.' });
    await until(() => readEvents(folder).some((e) => e.type === 'answer'), 20_000, 'the hook\'s answer line');
    await new Promise((r) => setTimeout(r, 300));
    channel.pollAll();
    expect(surfaces.model(id)).toMatchObject({ state: 'answered_here', answer: 'deny' });
  });

  it('Codex: the tool ran with the input asked for (its prompt adds a description): answered in the terminal', async () => {
    const run = startHook(codexPermission, { ...hookEnv, TD_QUESTION_WAIT_S: '540' }, ['--agent', 'codex']);
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-')), 20_000, 'decision card');
    await startHook(codexRan, hookEnv, ['--agent', 'codex']).done;
    expect(await run.done).toMatchObject({ code: 0, stdout: '' });
    expect(surfaces.model(id)).toMatchObject({ state: 'answered_in_terminal', state_note: "Answered in Codex's terminal." });
  });

  it('the bench was closed, so the agent asked in its terminal; the tool ran: the card says it was answered there', async () => {
    fs.writeFileSync(path.join(folder, 'bench.json'), JSON.stringify({ open: false }));
    const r = await startHook(codexPermission, hookEnv, ['--agent', 'codex']).done;
    expect(r.stdout).toBe('');
    const id = await until(() => [...surfaces.docs.keys()].find((k) => k.startsWith('permission-') && surfaces.model(k)?.state === 'invalidated'), 20_000, 'asked in the terminal');
    expect(surfaces.model(id)).toMatchObject({ state_note: 'The bench was closed, so Codex asked in its terminal.' });
    expect(status()).toBe('blocked');
    await startHook(codexRan, hookEnv, ['--agent', 'codex']).done;
    await until(() => surfaces.model(id)?.state === 'answered_in_terminal', 20_000, 'answered in the terminal');
    expect(status()).toBe('working');
  });

  it('OpenCode: a permission for a tool call is settled by that call (its id), and its own reply in the TUI after the bench closed corrects the card', async () => {
    append({ type: 'permission', id: 'per_a', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'ls' }, tool_use_id: 'call_a' });
    await until(() => surfaces.docs.get('permission-per_a'), 20_000, 'card');
    append({ type: 'tool', id: 't-other', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'ls' }, tool_use_id: 'call_b' });
    await new Promise((r) => setTimeout(r, 300));
    channel.pollAll();
    expect(surfaces.model('permission-per_a')).toMatchObject({ state: 'waiting' });
    append({ type: 'tool', id: 't-a', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'ls', description: 'List' }, tool_use_id: 'call_a' });
    await until(() => surfaces.model('permission-per_a')?.state === 'answered_in_terminal', 20_000, 'settled by its call');

    append({ type: 'permission', id: 'per_b', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'rm x' } });
    append({ type: 'unanswered', id: 'u-b', agent: 'opencode', of: 'per_b', reason: 'bench_closed' });
    await until(() => surfaces.model('permission-per_b')?.state === 'invalidated', 20_000, 'asked in the terminal');
    append({ type: 'answer', id: 'a-b', agent: 'opencode', session_id: 'o1', of: 'per_b', behavior: 'deny', via: 'terminal' });
    await until(() => surfaces.model('permission-per_b')?.state === 'answered_in_terminal', 20_000, 'corrected');
    expect(surfaces.model('permission-per_b')).toMatchObject({ answer: 'deny', state_note: "Answered in OpenCode's terminal." });
  });

  it('OpenCode: its own word of a bench answer that reaches the file after the turn\'s reply leaves the status done and the card answered here', async () => {
    append({ type: 'permission', id: 'per_c', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'rm -rf build' } });
    await until(() => status() === 'blocked', 20_000, 'blocked');
    // what the waiting hook writes once the bench denied, then the turn's end, then the plugin's late permission.replied
    append({ type: 'answer', id: 'a-c', agent: 'opencode', session_id: 'o1', of: 'per_c', behavior: 'deny', message: 'Keep it.' });
    append({ type: 'reply', id: 'r-c', agent: 'opencode', session_id: 'o1', text: 'Understood, I left it alone.' });
    append({ type: 'answer', id: 'a-c2', agent: 'opencode', session_id: 'o1', of: 'per_c', behavior: 'deny', via: 'terminal' });
    await new Promise((r) => setTimeout(r, 300));
    channel.pollAll();
    expect(status()).toBe('done');
    expect(surfaces.model('permission-per_c')).toMatchObject({ state: 'answered_here', answer: 'deny' });

    // Answered in its own prompt otherwise than on the bench, first: the card says what the agent took.
    append({ type: 'permission', id: 'per_d', agent: 'opencode', session_id: 'o1', tool_name: 'bash', tool_input: { command: 'ls' } });
    append({ type: 'answer', id: 'a-d', agent: 'opencode', session_id: 'o1', of: 'per_d', behavior: 'deny' });
    append({ type: 'answer', id: 'a-d2', agent: 'opencode', session_id: 'o1', of: 'per_d', behavior: 'allow', via: 'terminal' });
    await until(() => surfaces.model('permission-per_d')?.state === 'answered_in_terminal', 20_000, 'corrected');
    expect(surfaces.model('permission-per_d')).toMatchObject({ answer: 'allow', state_note: "Answered in OpenCode's terminal." });
    expect(status()).toBe('working');
  });
});

describe('each agent\'s session id reaches the pane (for resume), from its own hook payload', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['claude', { hook_event_name: 'SessionStart', session_id: '9c0e7d2a-0000-4000-8000-000000000001', transcript_path: '/nonexistent/9c0e.jsonl', cwd: '/w', source: 'startup' }, '9c0e7d2a-0000-4000-8000-000000000001'],
    ['codex', { hook_event_name: 'SessionStart', session_id: '01a22b4e-48ef-79e0-bd2e-0c7ad3c13d5b', transcript_path: '/nonexistent/rollout.jsonl', cwd: '/w', source: 'startup', model: 'gpt-5' }, '01a22b4e-48ef-79e0-bd2e-0c7ad3c13d5b'],
    ['gemini', { hook_event_name: 'SessionStart', session_id: '7be265f8-59b4-4404-a336-fdffa298165e', transcript_path: '/nonexistent/session.json', cwd: '/w', source: 'startup', timestamp: '2026-01-01T00:00:00Z' }, '7be265f8-59b4-4404-a336-fdffa298165e'],
    ['opencode', { hook_event_name: 'session.created', session_id: 'ses_dd4a76ba5ffeH6A4YMwKX8zqkt' }, 'ses_dd4a76ba5ffeH6A4YMwKX8zqkt'],
  ];
  for (const [agent, payload, sessionId] of cases) {
    it(agent, async () => {
      await startHook(payload, hookEnv, agent === 'claude' ? [] : ['--agent', agent]).done;
      await until(() => panes.get('pane1')!.agentCli, 20_000, 'agentCli');
      expect(panes.get('pane1')!.agentCli).toEqual({ name: agent, sessionId });
    });
  }
});

describe('replies, sessions and status', () => {
  it('prompt → working, reply → done (and a response card), then idle after a while', async () => {
    channel.dispose();
    start({ idleAfterMs: 200 });
    append({ type: 'session', id: 's-1', session_id: 'abc', transcript_path: '/home/ada/.claude/projects/-w/abc.jsonl', source: 'startup' });
    await until(() => status() === 'idle', 20_000, 'idle');
    expect(surfaces.transcripts).toEqual([['pane1', '/home/ada/.claude/projects/-w/abc.jsonl']]);
    append({ type: 'prompt', id: 'p-1', text: 'Add a dark theme' });
    await until(() => status() === 'working', 20_000, 'working');
    expect(panes.get('pane1')!.agent).toMatchObject({ status: 'working', detail: 'Add a dark theme' });
    append({ type: 'reply', id: 'r-1', text: 'The theme is in. Run it.' });
    await until(() => status() === 'done', 20_000, 'done');
    expect(notes.at(-1)).toMatchObject({ title: 'claude is done', body: 'The theme is in. Run it.' });
    expect(surfaces.docs.get('reply-r-1')).toMatchObject({ kind: 'response', model: { layman: 'The theme is in.', body: 'Run it.', register: 'done' } });
    await until(() => status() === 'idle', 20_000, 'idle after done');
  });

  it('no response card when the agent sent a surface since the prompt', async () => {
    append({ type: 'prompt', id: 'p-1', text: 'go' });
    await until(() => status() === 'working', 20_000, 'working');
    await new Promise((r) => setTimeout(r, 5));
    surfaces.ingest('pane1', { id: 'agent-own', kind: 'response', model: { layman: 'x' } }, 'mcp');
    append({ type: 'reply', id: 'r-2', text: 'Done.' });
    await until(() => status() === 'done', 20_000, 'done');
    expect(surfaces.docs.has('reply-r-2')).toBe(false);
  });

  it('the channel\'s own question cards do not count as the agent\'s surfaces', async () => {
    append({ type: 'prompt', id: 'p-1', text: 'go' });
    append({ type: 'question', id: 'q-9', question: 'Coffee?', options: ['Yes', 'No'] });
    append({ type: 'unanswered', id: 'u-9', of: 'q-9', reason: 'bench_closed' });
    await new Promise((r) => setTimeout(r, 5));
    append({ type: 'reply', id: 'r-3', text: 'Done.' });
    await until(() => surfaces.docs.get('reply-r-3'), 20_000, 'reply card');
  });

  it('garbage and partial lines are skipped; a restart never reads old events as new', async () => {
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), 'garbage\n{"tdac":"0.2"}\n');
    append({ type: 'reply', id: 'r-1', text: 'One.' });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), '{"tdac":"0.2","type":"prompt","id":"p-late","te');
    await until(() => surfaces.docs.get('reply-r-1'), 20_000, 'reply');
    channel.dispose();
    surfaces.docs.clear();
    start();
    channel.pollAll();
    expect(surfaces.docs.size).toBe(0);
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), `xt":"later","at":"${new Date().toISOString()}"}\n`);
    await until(() => status() === 'working', 20_000, 'the finished partial line read once');
    expect(panes.get('pane1')!.agent!.detail).toBe('later');
  });

  it('a session names the pane\'s agent and its session id (for resume)', async () => {
    append({ type: 'session', id: 's-c', agent: 'codex', session_id: '019a-codex', source: 'startup' });
    await until(() => panes.get('pane1')!.agentCli, 20_000, 'agentCli');
    expect(panes.get('pane1')!.agentCli).toEqual({ name: 'codex', sessionId: '019a-codex' });
  });

  it('an agent with no JSONL transcript: the ```td blocks of its reply become surfaces, and no reply card doubles them', async () => {
    append({ type: 'prompt', id: 'p-o', agent: 'opencode', text: 'go' });
    await until(() => status() === 'working', 20_000, 'working');
    await new Promise((r) => setTimeout(r, 5));
    append({ type: 'reply', id: 'r-o', agent: 'opencode', text: 'Done.\n\n```td\n{"td":"0.4","kind":"response","id":"from-reply","model":{"layman":"Tests pass."}}\n```\n' });
    await until(() => surfaces.docs.get('from-reply'), 20_000, 'the block as a surface');
    await until(() => status() === 'done', 20_000, 'done');
    expect(surfaces.docs.has('reply-r-o')).toBe(false);
  });

  it('a window that has never seen a pane folder starts at the end of its inbound.jsonl', () => {
    const other = panes.folder('pane2');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', type: 'reply', id: 'r-old', text: 'old', at: new Date().toISOString() })}\n`);
    panes.add('pane2');
    channel.pollAll();
    expect(surfaces.docs.has('reply-r-old')).toBe(false);
  });
});

describe('new agent pane', () => {
  it('starts claude with a session id and tells the surfaces service its transcript', async () => {
    const work = path.join(root, 'my_project.v2');
    fs.mkdirSync(work);
    const pane = await core.request('agent.new', { cwd: work }, { id: 'w1' });
    expect(panes.created.at(-1)).toMatchObject({ kind: 'agent', command: ['claude', '--session-id', '11111111-2222-3333-4444-555555555555'], cwd: work });
    const key = fs.realpathSync(work).replace(/[^A-Za-z0-9]/g, '-');
    expect(surfaces.transcripts).toEqual([[pane.id, path.join(root, '.claude', 'projects', key, '11111111-2222-3333-4444-555555555555.jsonl')]]);
  });

  it('Codex runs as given (its session id comes from its SessionStart), named as the pane\'s agent', async () => {
    const pane = await core.request('agent.new', { command: ['codex', '--full-auto'] }, { id: 'w1' });
    expect(panes.created.at(-1)).toMatchObject({ kind: 'agent', command: ['codex', '--full-auto'] });
    expect(pane.agentCli).toEqual({ name: 'codex' });
    expect(surfaces.transcripts).toEqual([]);
  });

  it('Gemini CLI gets a session id of the app\'s choosing; anything else runs as given', async () => {
    const pane = await core.request('agent.new', { command: ['gemini', '-m', 'x'] }, { id: 'w1' });
    expect(panes.created.at(-1)).toMatchObject({ command: ['gemini', '--session-id', '11111111-2222-3333-4444-555555555555', '-m', 'x'] });
    expect(pane.agentCli).toEqual({ name: 'gemini', sessionId: '11111111-2222-3333-4444-555555555555' });
    const other = await core.request('agent.new', { command: ['aider'] }, { id: 'w1' });
    expect(other.agentCli).toBeUndefined();
    expect(panes.created.at(-1)).toMatchObject({ command: ['aider'] });
  });

  it('lists every agent: the configured one first (with its options), those on PATH, then the rest with how to install them', async () => {
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    for (const name of ['codex', 'opencode']) fs.writeFileSync(path.join(bin, name), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'gemini'), 'not executable', { mode: 0o644 });
    channel.dispose();
    await core.dispose();
    core = new Core();
    channel = installAgentChannel({
      core, panes: panes as unknown as PaneServiceApi, surfaces: surfaces as unknown as SurfaceServiceApi,
      settings: { get: () => ({ agentCommand: ['opencode', '--model', 'td/scripted'] }) } as never,
      env: { HOME: root, PATH: bin },
    });
    expect(await core.request('agent.available', {}, { id: 'w1' })).toEqual([
      { name: 'opencode', label: 'OpenCode', command: ['opencode', '--model', 'td/scripted'], installed: true, path: path.join(bin, 'opencode'), hooks: false, configured: true },
      { name: 'codex', label: 'Codex', command: ['codex'], installed: true, path: path.join(bin, 'codex'), hooks: false },
      { name: 'claude', label: 'Claude Code', command: ['claude'], installed: false, install: 'npm install -g @anthropic-ai/claude-code' },
      { name: 'gemini', label: 'Gemini CLI', command: ['gemini'], installed: false, install: 'npm install -g @google/gemini-cli' },
    ]);
  });

  it('a bad command is refused with a reason', async () => {
    await expect(core.request('agent.new', { command: [] }, { id: 'w1' })).rejects.toThrow(/list of words/);
  });
});
