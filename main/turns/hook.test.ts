/**
 * The turn checkpoints the real hook takes (scripts/hooks/tdac-hook.sh, as each agent runs
 * it, with that agent's own payloads): a start at the prompt and an end at the turn's end,
 * written before the hook's event, for Claude Code, Codex, Gemini CLI and OpenCode.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitSync, makeRepo } from '../worktrees/testing.ts';
import { readEntries } from './log.ts';
import { turnsTestEnv } from './testing.ts';

const HOOK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'hooks', 'tdac-hook.sh');

let t: ReturnType<typeof turnsTestEnv>;
let repo: string;
let folder: string;
beforeEach(() => {
  t = turnsTestEnv();
  repo = makeRepo(path.join(t.dir, 'repo'), t.env);
  folder = path.join(t.state, 'surfaces', 'sess', 'pane-1');
});
afterEach(() => t.cleanup());

function runHook(agent: string, payload: Record<string, unknown>, extra: Record<string, string> = {}, cwd = repo): void {
  const r = spawnSync('sh', [HOOK, '--agent', agent], {
    cwd, input: JSON.stringify(payload), encoding: 'utf8',
    env: { ...t.env, TD_SESSION: 'sess', TD_PANE_ID: 'pane-1', TD_NODE: process.execPath, ...extra },
  });
  expect(r.status).toBe(0);
}

const events = () => fs.readFileSync(path.join(folder, 'inbound.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string });

const AGENTS: Array<[string, (cwd: string) => Record<string, unknown>, (cwd: string) => Record<string, unknown>]> = [
  ['claude', (cwd) => ({ hook_event_name: 'UserPromptSubmit', session_id: 's', transcript_path: '', cwd, prompt: 'shout line two' }), (cwd) => ({ hook_event_name: 'Stop', session_id: 's', cwd, stop_hook_active: false, last_assistant_message: 'Done.' })],
  ['codex', (cwd) => ({ hook_event_name: 'UserPromptSubmit', session_id: 's', cwd, model: 'gpt-5', prompt: 'shout line two' }), (cwd) => ({ hook_event_name: 'Stop', session_id: 's', cwd, last_assistant_message: 'Done.' })],
  ['gemini', (cwd) => ({ hook_event_name: 'BeforeAgent', session_id: 's', cwd, prompt: 'shout line two' }), (cwd) => ({ hook_event_name: 'AfterAgent', session_id: 's', cwd, prompt: 'shout line two', prompt_response: 'Done.' })],
  ['opencode', () => ({ hook_event_name: 'chat.message', session_id: 's', text: 'shout line two' }), () => ({ hook_event_name: 'session.idle', session_id: 's', text: 'Done.' })],
];

describe('the hook takes a turn\'s checkpoints', () => {
  for (const [agent, prompt, stop] of AGENTS) {
    it(`${agent}: a start at the prompt and an end at the turn's end, before the events`, () => {
      runHook(agent, prompt(repo));
      expect(readEntries(folder).map((e) => [e.kind, e.n, e.prompt])).toEqual([['start', 1, 'shout line two']]);
      fs.writeFileSync(path.join(repo, 'a.txt'), fs.readFileSync(path.join(repo, 'a.txt'), 'utf8').replace('line 2\n', 'LINE TWO\n'));
      runHook(agent, stop(repo));
      const [start, end] = readEntries(folder);
      expect(end).toMatchObject({ kind: 'end', n: 1, agent, target: { top: repo, shadow: false } });
      expect(gitSync(['diff', '--stat', start!.commit, end!.commit], repo, t.env)).toMatch(/a\.txt \| 2 \+-/);
      expect(gitSync(['rev-parse', 'refs/terminal-delight/turns/sess/pane-1/1-end'], repo, t.env).trim()).toBe(end!.commit);
      expect(events().map((e) => e.type)).toEqual(['prompt', 'reply']);
      // Each checkpoint was recorded before its event was written.
      const [p, r] = events() as unknown as Array<{ at: string }>;
      expect(start!.at <= p!.at && end!.at <= r!.at).toBe(true);
      expect(gitSync(['status', '--porcelain'], repo, t.env)).toBe(' M a.txt\n');
    });
  }

  it('takes none with TD_TURNS=0, nor in the home folder outside a repository; the events are written all the same', () => {
    const [, prompt, stop] = AGENTS[0]!;
    runHook('claude', prompt(repo), { TD_TURNS: '0' });
    runHook('claude', stop(repo), { TD_TURNS: '0' });
    const home = t.env.HOME!;
    runHook('claude', prompt(home), {}, home);
    runHook('claude', stop(home), {}, home);
    expect(readEntries(folder)).toEqual([]);
    expect(events().map((e) => e.type)).toEqual(['prompt', 'reply', 'prompt', 'reply']);
    expect(gitSync(['for-each-ref', 'refs/terminal-delight'], repo, t.env)).toBe('');
  });

  it('a folder too large to record in time is given up, once and for all', async () => {
    const { recordTurn } = await import('./log.ts');
    const big = path.join(t.dir, 'big');
    fs.mkdirSync(big);
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(big, `f${i}.txt`), `${i}\n`.repeat(200));
    expect(await recordTurn(folder, t.env, 'start', { cwd: big, agent: 'claude', prompt: 'x' }, 1)).toBeUndefined();
    expect(fs.readdirSync(path.join(t.state, 'shadow')).filter((f) => f.endsWith('.skip'))).toHaveLength(1);
    // Even with all the time in the world, it is not tried again.
    expect(await recordTurn(folder, t.env, 'start', { cwd: big, agent: 'claude', prompt: 'x' })).toBeUndefined();
    expect(readEntries(folder)).toEqual([]);
    // A repository too: given up once, not tried again.
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(repo, `u${i}.txt`), `${i}\n`.repeat(200));
    expect(await recordTurn(folder, t.env, 'start', { cwd: repo, agent: 'claude', prompt: 'x' }, 1)).toBeUndefined();
    expect(await recordTurn(folder, t.env, 'start', { cwd: repo, agent: 'claude', prompt: 'x' })).toBeUndefined();
    expect(fs.readdirSync(path.join(t.state, 'shadow')).filter((f) => f.endsWith('.skip'))).toHaveLength(2);
  });
});
