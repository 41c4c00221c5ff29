import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents, runHook, sampleInput, startHook, until } from './hook-runner.ts';

let state: string;
let folder: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'td-hook-'));
  folder = path.join(state, 'terminal-delight', 'surfaces', 'sess1', 'pane1');
  fs.mkdirSync(folder, { recursive: true });
  env = { PATH: process.env.PATH, TD_NODE: process.execPath, HOME: state, XDG_STATE_HOME: state, TD_SESSION: 'sess1', TD_PANE_ID: 'pane1', TD_QUESTION_WAIT_S: '30', TD_QUESTION_POLL_MS: '50', TD_WINDOW_GRACE_S: '60' };
});
afterEach(() => fs.rmSync(state, { recursive: true, force: true }));

const openBench = (open: boolean) => fs.writeFileSync(path.join(folder, 'bench.json'), JSON.stringify({ open, at: new Date().toISOString() }));
const settlement = (id: string) => JSON.parse(fs.readFileSync(path.join(folder, 'answers', `${id}.json`), 'utf8')) as Record<string, unknown>;
const writeAnswer = (id: string, value: unknown) => {
  fs.mkdirSync(path.join(folder, 'answers'), { recursive: true });
  const tmp = path.join(folder, 'answers', `.${id}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(value));
  fs.renameSync(tmp, path.join(folder, 'answers', `${id}.json`));
};

describe('events written to inbound.jsonl', () => {
  it('SessionStart becomes a session event with the session id and transcript path', async () => {
    const r = await runHook(sampleInput('session-start.json'), env);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const [e] = readEvents(folder);
    expect(e).toMatchObject({
      tdac: '0.2', type: 'session', source: 'startup', cwd: '/home/ada/src/demo',
      session_id: '3f1c9a52-7b1e-4d0a-9c55-0f2b8e6d1a90',
      transcript_path: '/home/ada/.claude/projects/-home-ada-src-demo/3f1c9a52-7b1e-4d0a-9c55-0f2b8e6d1a90.jsonl',
    });
    expect(e.id).toMatch(/^s-[0-9a-f]{12}$/);
    expect(new Date(e.at as string).toISOString()).toBe(e.at);
  });

  it('UserPromptSubmit becomes a prompt event with the text', async () => {
    const r = await runHook(sampleInput('user-prompt-submit.json'), env);
    expect(r.code).toBe(0);
    expect(readEvents(folder)).toEqual([expect.objectContaining({ tdac: '0.2', type: 'prompt', text: 'Add a dark theme to the settings page.' })]);
  });

  it('Stop becomes a reply event with last_assistant_message', async () => {
    const input = sampleInput('stop.json');
    await runHook(input, env);
    expect(readEvents(folder)).toEqual([expect.objectContaining({ type: 'reply', text: input.last_assistant_message })]);
  });

  it('Stop without last_assistant_message reads the last assistant text from the transcript', async () => {
    const transcript = path.join(state, 't.jsonl');
    fs.writeFileSync(transcript, [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done. All good.' }, { type: 'tool_use', id: 'x', name: 'Bash', input: {} }] } }),
      JSON.stringify({ type: 'system', content: 'x' }),
      '',
    ].join('\n'));
    const input: Record<string, unknown> = { ...sampleInput('stop.json'), transcript_path: transcript };
    delete input.last_assistant_message;
    await runHook(input, env);
    expect(readEvents(folder)).toEqual([expect.objectContaining({ type: 'reply', text: 'Done. All good.' })]);
  });

  it('a PreToolUse of another tool writes nothing and says nothing', async () => {
    const r = await runHook(sampleInput('pre-tool-use-bash.json'), env);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder)).toEqual([]);
  });

  it('PostToolUse of AskUserQuestion becomes a tool event with the answers given', async () => {
    await runHook(sampleInput('post-tool-use-ask-user-question.json'), env);
    expect(readEvents(folder)).toEqual([expect.objectContaining({
      type: 'tool', tool_name: 'AskUserQuestion', tool_use_id: 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB', agent: 'claude',
      answers: { 'Which colour scheme should the dark theme start from?': 'Solarized' },
    })]);
  });

  it('PostToolUse of any tool becomes a tool event (the evidence a prompt was answered in the terminal)', async () => {
    await runHook({ ...sampleInput('pre-tool-use-bash.json'), hook_event_name: 'PostToolUse', tool_response: { stdout: '' } }, env);
    expect(readEvents(folder)).toEqual([expect.objectContaining({ type: 'tool', tool_name: 'Bash', tool_input: expect.objectContaining({ command: expect.any(String) }) })]);
    // What the tool printed goes with it (tool_output), its secrets out.
    await runHook({ ...sampleInput('pre-tool-use-bash.json'), hook_event_name: 'PostToolUse', tool_response: { stdout: 'FAIL zqxcache.test.ts', stderr: 'GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' } }, env);
    expect(readEvents(folder)[1]).toMatchObject({ type: 'tool', tool_output: 'FAIL zqxcache.test.ts\nGITHUB_TOKEN=[redacted]' });
  });

  it('--agent codex maps Codex\'s payloads (the same hook, another module)', async () => {
    const r = await runHook({ session_id: 'c-1', hook_event_name: 'UserPromptSubmit', prompt: 'Fix the build', turn_id: 't1', cwd: state, transcript_path: null, model: 'gpt-5' }, env, ['--agent', 'codex']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder)).toEqual([expect.objectContaining({ type: 'prompt', text: 'Fix the build', session_id: 'c-1', agent: 'codex' })]);
  });

  it('garbage on stdin: exit 0, nothing written', async () => {
    const r = await runHook('{not json', env);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder)).toEqual([]);
  });

  it('appends: events from many hooks at once stay whole lines', async () => {
    await Promise.all(Array.from({ length: 8 }, () => runHook(sampleInput('user-prompt-submit.json'), env)));
    const events = readEvents(folder);
    expect(events).toHaveLength(8);
    expect(new Set(events.map((e) => e.id)).size).toBe(8);
  });
});

describe('outside a pane', () => {
  it('exits 0 without starting node, and writes nothing (its cost: npm run bench -- hook)', async () => {
    // A `node` first on PATH that leaves a mark: outside a pane the hook must never run it.
    const bin = path.join(state, 'bin');
    fs.mkdirSync(bin);
    const mark = path.join(state, 'node-ran');
    fs.writeFileSync(path.join(bin, 'node'), `#!/bin/sh\necho ran >> '${mark}'\nexit 0\n`, { mode: 0o755 });
    const outside = { PATH: `${bin}:${process.env.PATH}`, HOME: state, XDG_STATE_HOME: state };
    for (const name of ['session-start.json', 'user-prompt-submit.json', 'pre-tool-use-ask-user-question.json', 'permission-request-bash.json', 'stop.json']) {
      const r = await runHook(sampleInput(name), outside);
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(fs.existsSync(mark)).toBe(false);
    expect(fs.readdirSync(path.join(state, 'terminal-delight', 'surfaces', 'sess1', 'pane1'))).toEqual([]);
    // The same stand-in inside a pane is run (so the check above can fail).
    await runHook(sampleInput('stop.json'), { ...env, PATH: outside.PATH, TD_NODE: path.join(bin, 'node') });
    expect(fs.readFileSync(mark, 'utf8')).toBe('ran\n');
  });

  it('refuses pane ids that would leave the state folder', async () => {
    const r = await runHook(sampleInput('user-prompt-submit.json'), { ...env, TD_PANE_ID: '..' });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(state, 'terminal-delight', 'surfaces', 'inbound.jsonl'))).toBe(false);
    expect(readEvents(folder)).toEqual([]);
  });
});

describe('questions', () => {
  it('returns at once with no output when the bench is closed, and says the wait is over', async () => {
    openBench(false);
    const r = await runHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...env, TD_QUESTION_WAIT_S: '540' });
    // It did not wait out the 540 s (the test's own timeout guards that): the wait is over, said so.
    expect(r).toMatchObject({ code: 0, stdout: '' });
    const events = readEvents(folder);
    expect(events[0]).toMatchObject({
      type: 'question', id: 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB',
      questions: [expect.objectContaining({ question: 'Which colour scheme should the dark theme start from?', header: 'Scheme', multiple: false })],
    });
    expect(events[1]).toMatchObject({ type: 'unanswered', of: 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB', reason: 'bench_closed' });
    expect(settlement('toolu_01HqZ8xKc4vNw2ePq7RmT3yB')).toMatchObject({ closed: 'bench_closed' });
  });

  it('with no bench.json at all, the bench counts as closed', async () => {
    const r = await runHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    expect(r.stdout).toBe('');
    expect(readEvents(folder).map((e) => e.type)).toEqual(['question', 'unanswered']);
  });

  it('waits while the bench is open and hands back the answer in the documented shape', async () => {
    openBench(true);
    const input = sampleInput('pre-tool-use-ask-user-question.json');
    const run = startHook(input, env);
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    // still waiting
    expect(run.child.exitCode).toBe(null);
    writeAnswer('toolu_01HqZ8xKc4vNw2ePq7RmT3yB', { answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } });
    const r = await run.done;
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: expect.any(String),
        updatedInput: {
          questions: (input.tool_input as { questions: unknown }).questions,
          answers: { 'Which colour scheme should the dark theme start from?': 'Nord' },
        },
      },
    });
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'answer', of: 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB', answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } });
  });

  it('answers several questions at once; a multiple choice given as a list is joined', async () => {
    openBench(true);
    const run = startHook(sampleInput('pre-tool-use-ask-user-question-two.json'), env);
    const q = await until(() => readEvents(folder).find((e) => e.type === 'question'), 20_000, 'question event');
    expect(q.questions).toEqual([
      { question: 'Where should the toggle live?', header: 'Toggle', options: [{ label: 'Header' }, { label: 'Settings page' }], multiple: false },
      { question: 'Which pages need the theme first?', header: 'Pages', options: [{ label: 'Editor' }, { label: 'Dashboard' }, { label: 'Login' }], multiple: true },
    ]);
    writeAnswer(q.id as string, { answers: { 'Where should the toggle live?': 'Header', 'Which pages need the theme first?': ['Editor', 'Login'] } });
    const out = JSON.parse((await run.done).stdout);
    expect(out.hookSpecificOutput.updatedInput.answers).toEqual({ 'Where should the toggle live?': 'Header', 'Which pages need the theme first?': 'Editor, Login' });
  });

  it('times out cleanly: no output, exit 0, the wait marked closed', async () => {
    openBench(true);
    const r = await runHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...env, TD_QUESTION_WAIT_S: '0.5' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'unanswered', reason: 'timeout' });
    expect(settlement('toolu_01HqZ8xKc4vNw2ePq7RmT3yB')).toMatchObject({ closed: 'timeout' });
  });

  it('stops waiting when no window reads the pane (the question is asked in the terminal)', async () => {
    openBench(true);
    const r = await runHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...env, TD_WINDOW_GRACE_S: '0.3' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'unanswered', reason: 'no_window' });
  });

  it('keeps waiting once the window has read the question', async () => {
    openBench(true);
    // what the agent channel writes once it has read the lines (here: far past them)
    fs.writeFileSync(path.join(folder, '.agent-channel.json'), JSON.stringify({ v: 1, offset: 1e9, pending: {}, finished: {} }));
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), { ...env, TD_WINDOW_GRACE_S: '0.3' });
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    // past the grace, it still waits (the time has to pass for this to mean anything)
    await new Promise((r) => setTimeout(r, 800));
    expect(run.child.exitCode).toBe(null);
    writeAnswer('toolu_01HqZ8xKc4vNw2ePq7RmT3yB', { answers: { 'Which colour scheme should the dark theme start from?': 'Nord' } });
    expect(JSON.parse((await run.done).stdout).hookSpecificOutput.updatedInput.answers).toBeDefined();
  });

  it('stops waiting when the bench closes', async () => {
    openBench(true);
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    openBench(false);
    const r = await run.done;
    expect(r.stdout).toBe('');
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'unanswered', reason: 'bench_closed' });
  });

  it('a pass answer sends the question to the terminal', async () => {
    openBench(true);
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    writeAnswer('toolu_01HqZ8xKc4vNw2ePq7RmT3yB', { pass: true });
    expect((await run.done).stdout).toBe('');
  });

  it('Claude Code ending the hook (SIGTERM) leaves no output and closes the wait', async () => {
    openBench(true);
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    // `sh` exec'd node, so the child is the hook itself.
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.stdout).toBe('');
    expect(readEvents(folder).at(-1)).toMatchObject({ type: 'unanswered', reason: 'cancelled' });
    expect(settlement('toolu_01HqZ8xKc4vNw2ePq7RmT3yB')).toMatchObject({ closed: 'cancelled' });
  });

  it('retired by the window (answered in the terminal): exits at once, prints nothing, says nothing more', async () => {
    openBench(true);
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    await until(() => readEvents(folder).some((e) => e.type === 'question'), 20_000, 'question event');
    writeAnswer('toolu_01HqZ8xKc4vNw2ePq7RmT3yB', { retired: 'answered_in_terminal' });
    const r = await run.done;
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(readEvents(folder).map((e) => e.type)).toEqual(['question']);
  });
});

describe('permission prompts', () => {
  for (const behavior of ['allow', 'deny'] as const) {
    it(`${behavior}: answered through decision.behavior`, async () => {
      openBench(true);
      const run = startHook(sampleInput('permission-request-bash.json'), env);
      const p = await until(() => readEvents(folder).find((e) => e.type === 'permission'), 20_000, 'permission event');
      expect(p).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'rm -rf build', description: 'Remove the build folder' } });
      writeAnswer(p.id as string, behavior === 'allow' ? { behavior } : { behavior, message: 'Not the build folder, please.' });
      const out = JSON.parse((await run.done).stdout);
      expect(out).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: 'Not the build folder, please.' },
        },
      });
      expect(readEvents(folder).at(-1)).toMatchObject({ type: 'answer', of: p.id, behavior });
    });
  }

  it('closed bench leaves Claude Code its own prompt', async () => {
    const r = await runHook(sampleInput('permission-request-bash.json'), env);
    expect(r.stdout).toBe('');
    expect(readEvents(folder).map((e) => e.type)).toEqual(['permission', 'unanswered']);
  });

  it('AskUserQuestion permission prompts are left to the question hook', async () => {
    openBench(true);
    const r = await runHook({ ...sampleInput('permission-request-bash.json'), tool_name: 'AskUserQuestion', tool_input: { questions: [] } }, env);
    expect(r.stdout).toBe('');
    expect(readEvents(folder)).toEqual([]);
  });
});
