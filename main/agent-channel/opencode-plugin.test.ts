/**
 * The OpenCode plugin file as `terminal-delight hooks --agent opencode` writes it, loaded as
 * OpenCode loads it (an ES module) and handed events the way OpenCode's bus hands them: one
 * after another without waiting for the handler. Its hook is a real `sh` script that writes
 * each payload it gets, slower for some, so the order the hook sees them is the plugin's doing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pluginText } from './cli.ts';

let dir: string;
let log: string;
const saved = { TD_SESSION: process.env.TD_SESSION, TD_PANE_ID: process.env.TD_PANE_ID, TD_HOOK_TURN_MS: process.env.TD_HOOK_TURN_MS };

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-oc-plugin-'));
  log = path.join(dir, 'seen.jsonl');
  process.env.TD_SESSION = 'sess1';
  process.env.TD_PANE_ID = 'pane1';
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Loads the plugin with a hook script: `slow` payloads (by event name) take `slowS` seconds; a
 * permission.asked waits for the file `release` (as the real hook waits for the bench), then
 * prints `answer`. Each writes its payload to the log once done waiting.
 */
async function load(slow: string[], answer = '', slowS = 0.6) {
  const hook = path.join(dir, 'hook.sh');
  fs.writeFileSync(hook, [
    'payload=$(cat)',
    ...slow.map((name) => `case "$payload" in *'"hook_event_name":"${name}"'*) sleep ${slowS};; esac`),
    // (and gives up once the test's folder is gone: a failed test leaves no loop behind)
    `case "$payload" in *'"hook_event_name":"permission.asked"'*) while [ ! -e '${path.join(dir, 'release')}' ] && [ -d '${dir}' ]; do sleep 0.05; done;; esac`,
    `printf '%s\\n' "$payload" >> '${log}'`,
    `case "$payload" in *'"hook_event_name":"permission.asked"'*) printf '%s' '${answer}';; esac`,
  ].join('\n'));
  // a fresh module each load (the import cache keys on the URL)
  const file = path.join(dir, `terminal-delight-${Math.random().toString(36).slice(2)}.js`);
  fs.writeFileSync(file, pluginText(hook));
  const mod = (await import(pathToFileURL(file).href)) as { TerminalDelight: (ctx: { client: unknown }) => Promise<Record<string, (...a: unknown[]) => Promise<void>>> };
  const replies: unknown[] = [];
  const hooks = await mod.TerminalDelight({ client: { permission: { reply: async (body: unknown) => { replies.push(body); } } } });
  const seen = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);
  return { hooks, replies, seen };
}

const ev = (type: string, properties: Record<string, unknown>) => ({ event: { type, properties } });

describe('the OpenCode plugin', () => {
  it('hands the hook a permission\'s reply before the turn\'s end, though the reply\'s hook is slower and OpenCode does not wait between them', async () => {
    const { hooks, seen } = await load(['permission.replied']);
    const pending = [
      hooks.event(ev('permission.replied', { sessionID: 'ses_1', requestID: 'per_1', reply: 'reject' })),
      hooks.event(ev('message.updated', { info: { id: 'msg_2', role: 'assistant' } })),
      hooks.event(ev('message.part.updated', { part: { type: 'text', messageID: 'msg_2', sessionID: 'ses_1', text: 'Understood.' } })),
      hooks.event(ev('session.idle', { sessionID: 'ses_1' })),
    ];
    await Promise.all(pending);
    expect(seen().map((p) => p.hook_event_name)).toEqual(['permission.replied', 'session.idle']);
    expect(seen()[1]).toMatchObject({ session_id: 'ses_1', text: 'Understood.' });
  });

  it('a permission waiting on the bench holds back nothing after it, and its answer goes to OpenCode\'s client', async () => {
    const { hooks, replies, seen } = await load([], '{"reply":"reject","message":"Keep it."}');
    await hooks.event(ev('permission.asked', { sessionID: 'ses_1', id: 'per_2', permission: 'bash', patterns: ['rm -rf build'] }));
    // the permission's hook still waits for the bench: the next event's hook runs all the same
    await hooks['tool.execute.after']({ sessionID: 'ses_1', tool: 'bash', callID: 'call_1', args: { command: 'ls' } }, { output: 'a\n' });
    expect(seen().map((p) => p.hook_event_name)).toEqual(['tool.execute.after']);
    expect(replies).toEqual([]);
    fs.writeFileSync(path.join(dir, 'release'), '');
    const until = Date.now() + 10_000;
    while (replies.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(replies).toEqual([{ requestID: 'per_2', reply: 'reject', message: 'Keep it.' }]);
    expect(seen().map((p) => p.hook_event_name)).toEqual(['tool.execute.after', 'permission.asked']);
  });

  it('a hook that hangs holds the next event back its turn\'s time at most (TD_HOOK_TURN_MS), not until it ends', async () => {
    process.env.TD_HOOK_TURN_MS = '300';
    const { hooks, seen } = await load(['session.created'], '', 3);
    void hooks.event(ev('session.created', { info: { id: 'ses_3' } }));
    // the first hook still sleeps: the second was let go after 300 ms, and is done first
    await hooks['chat.message']({ sessionID: 'ses_3' }, { parts: [{ type: 'text', text: 'hello' }] });
    expect(seen().map((p) => p.hook_event_name)).toEqual(['chat.message']);
  });
});
