/**
 * The agent channel inside the real app (createApp: real panes with PTYs, the real
 * surfaces service), with the real hook process: a question becomes a card, choosing on
 * the card answers the waiting hook and types nothing; "New agent pane" starts Claude
 * (a stand-in `claude` script on PATH) with a session id whose transcript is read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import type { Client } from '../core.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { readEvents, sampleInput, startHook } from '../../scripts/hooks/hook-runner.ts';

let state: ReturnType<typeof tempState>;
let app: App;
const client: Client = { id: 'test-window' };

beforeEach(async () => {
  state = tempState('td-agent-app-');
  state.env.HOME = state.dir;
  delete state.env.CLAUDE_CONFIG_DIR;
  const bin = path.join(state.dir, 'bin');
  fs.mkdirSync(bin);
  // A stand-in for Claude Code: writes a transcript where Claude Code would, then waits.
  fs.writeFileSync(path.join(bin, 'claude'), [
    '#!/bin/sh',
    '[ "$1" = "--session-id" ] || { echo "no session id"; exec sleep 600; }',
    'dir="$HOME/.claude/projects/$(pwd -P | sed "s/[^A-Za-z0-9]/-/g")"',
    'mkdir -p "$dir"',
    `printf '%s\\n' '{"type":"assistant","uuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"Here.\\n\`\`\`td\\n{\\"td\\":\\"0.4\\",\\"kind\\":\\"response\\",\\"id\\":\\"from-transcript\\",\\"model\\":{\\"layman\\":\\"It works.\\"}}\\n\`\`\`"}]}}' > "$dir/$2.jsonl"`,
    'echo "claude started as $*"',
    'exec sleep 600',
    '',
  ].join('\n'), { mode: 0o755 });
  state.env.PATH = `${bin}:${state.env.PATH}`;
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
});
afterEach(async () => {
  await app.dispose();
  state.cleanup();
});

async function firstPane() {
  const hello = await app.core.request('app.hello', {}, client);
  return hello.panes[0];
}

describe('the agent channel in the app', () => {
  it('a question from the hook becomes a card; choosing on it answers the hook and types nothing', async () => {
    const pane = await firstPane();
    await app.core.request('bench.set', { paneId: pane.id, open: true }, client);
    const env = { PATH: process.env.PATH, TD_NODE: process.execPath, HOME: state.dir, XDG_STATE_HOME: state.env.XDG_STATE_HOME, TD_SESSION: app.panes.session, TD_PANE_ID: pane.id, TD_QUESTION_POLL_MS: '50' };
    const run = startHook(sampleInput('pre-tool-use-ask-user-question.json'), env);
    const cardId = 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB';
    const card = await waitFor(async () => (await app.core.request('surface.list', { paneId: pane.id }, client)).find((s) => s.id === cardId), 'the question card', 30_000);
    expect(card).toMatchObject({ kind: 'question', route: 'agent', shelf: 'Decide', model: { question: 'Which colour scheme should the dark theme start from?', multiple: false } });
    await waitFor(() => app.panes.get(pane.id)?.agent?.status === 'blocked', 'blocked');

    const res = await app.core.request('surface.act', { paneId: pane.id, surfaceId: cardId, action: 'choose', target: 'Plain black' }, client);
    expect(res).toMatchObject({ ok: true });
    const r = await run.done;
    expect(JSON.parse(r.stdout).hookSpecificOutput.updatedInput.answers).toEqual({ 'Which colour scheme should the dark theme start from?': 'Plain black' });
    expect(readEvents(app.panes.folder(pane.id)).at(-1)).toMatchObject({ type: 'answer' });
    await waitFor(() => app.panes.get(pane.id)?.agent?.status === 'working', 'working');
    expect(app.panes.screenText(pane.id)).not.toContain('[workbench:');
  });

  it('an answer after the hook stopped waiting is never applied: the answer file stays the hook\'s, nothing typed, the card says so', async () => {
    const pane = await firstPane();
    await app.core.request('bench.set', { paneId: pane.id, open: true }, client);
    const env = { PATH: process.env.PATH, TD_NODE: process.execPath, HOME: state.dir, XDG_STATE_HOME: state.env.XDG_STATE_HOME, TD_SESSION: app.panes.session, TD_PANE_ID: pane.id, TD_QUESTION_WAIT_S: '0.3', TD_QUESTION_POLL_MS: '50' };
    const r = await startHook(sampleInput('pre-tool-use-ask-user-question.json'), env).done;
    expect(r.stdout).toBe('');
    const cardId = 'question-toolu_01HqZ8xKc4vNw2ePq7RmT3yB';
    await waitFor(async () => (await app.core.request('surface.list', { paneId: pane.id }, client)).find((s) => s.id === cardId && s.model.state === 'timed_out'), 'the card to say it timed out', 30_000);
    const res = await app.core.request('surface.act', { paneId: pane.id, surfaceId: cardId, action: 'choose', target: 'Nord' }, client);
    expect(res).toMatchObject({ ok: false, error: expect.stringMatching(/asks in its terminal now/) });
    expect(JSON.parse(fs.readFileSync(path.join(app.panes.folder(pane.id), 'answers', 'toolu_01HqZ8xKc4vNw2ePq7RmT3yB.json'), 'utf8'))).toMatchObject({ closed: 'timeout' });
    expect(app.panes.screenText(pane.id)).not.toContain('[workbench:');
  });

  it('New agent pane: claude with --session-id, its transcript read from the first second', async () => {
    const work = path.join(state.dir, 'my_project.v2');
    fs.mkdirSync(work);
    const pane = await app.core.request('agent.new', { cwd: work }, client);
    expect(pane.kind).toBe('agent');
    expect(pane.command[0]).toBe('claude');
    expect(pane.command[1]).toBe('--session-id');
    expect(pane.command[2]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await waitFor(() => app.panes.screenText(pane.id).includes('claude started as --session-id'), 'the stand-in claude');
    const surface = await waitFor(async () => (await app.core.request('surface.list', { paneId: pane.id }, client)).find((s) => s.id === 'from-transcript'), 'the transcript surface', 30_000);
    expect(surface).toMatchObject({ route: 'transcript', model: { layman: 'It works.' } });
  });

  it('New agent pane with the configured command', async () => {
    await app.core.request('settings.set', { agentCommand: ['/bin/sh', '-c', 'echo configured-agent; sleep 600'] }, client);
    const pane = await app.core.request('agent.new', {}, client);
    expect(pane.command).toEqual(['/bin/sh', '-c', 'echo configured-agent; sleep 600']);
    await waitFor(() => app.panes.screenText(pane.id).includes('configured-agent'), 'the configured agent');
  });
});
