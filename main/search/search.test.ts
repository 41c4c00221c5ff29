/**
 * Search everything, end to end (issue 36): a real service (its own process), real panes with
 * a real login shell, the real `terminal-delight search` command; a kill -9 of the service
 * while it indexes.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../preload/contract.ts';
import { paneFolder, statePaths } from '../paths.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { connectService, stopService, type ServiceConnection } from '../service/client.ts';
import { DB_FILE, sqlite, storedText } from './index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');

let st: ReturnType<typeof tempState>;
let env: NodeJS.ProcessEnv;
const conns: ServiceConnection[] = [];

beforeEach(() => {
  st = tempState('td-search-e2e-');
  env = { ...st.env, TD_NODE: process.execPath };
});
afterEach(async (ctx) => {
  // A failure says what the service logged.
  if (ctx.task.result?.state === 'fail') {
    try {
      process.stderr.write(`[service.log]\n${fs.readFileSync(statePaths(env).serviceLog, 'utf8').slice(-6000)}\n`);
    } catch {
      // no log
    }
  }
  for (const c of conns.splice(0)) c.close();
  await stopService({ env, endPanes: true }).catch(() => undefined);
  st.cleanup();
}, 60_000);

async function connect(fresh: boolean): Promise<ServiceConnection> {
  const c = await connectService({ env, client: 'cli', fresh, cwd: st.dir, timeoutMs: 60_000 });
  conns.push(c);
  return c;
}

/** `terminal-delight search … --json`, as a person runs it. */
function cli(...args: string[]): { code: number | null; hits: Array<Omit<SearchHit, 'at' | 'marked'> & { at: string }>; stderr: string } {
  const r = spawnSync(BIN, ['search', ...args, '--json'], { env, cwd: st.dir, encoding: 'utf8', timeout: 60_000 });
  const hits = r.stdout.trim() ? (JSON.parse(r.stdout) as { hits: [] }).hits : [];
  return { code: r.status, hits, stderr: r.stderr };
}

const uid = () => randomBytes(4).toString('hex');

/** The service's session (its pane folders' parent), from the saved session (app.hello would make this connection a window, held to answering pings). */
const session = (): string => (JSON.parse(fs.readFileSync(statePaths(env).sessionFile, 'utf8')) as { session: string }).session;

async function screen(c: ServiceConnection, paneId: string): Promise<string> {
  return (await c.request('pane.snapshot', { paneId, scrollback: 'all' })).data;
}

async function waitEnded(c: ServiceConnection, paneId: string): Promise<void> {
  await waitFor(async () => !(await c.request('service.info', {})).running.some((r) => r.paneId === paneId), `pane ${paneId} to end`, 30_000, 100);
}

describe('terminal-delight search', () => {
  it('finds a word that scrolled out of an ended login shell, with its pane and line; a decision\'s comment; never a secret', async () => {
    const c = await connect(true);
    await c.request('settings.set', { scrollback: 100 });
    const shell = await c.request('pane.create', { cwd: st.dir });
    expect(shell.command).toEqual(['/bin/bash', '-l']);
    await waitFor(async () => (await screen(c, shell.id)).includes('$ '), 'the login shell\'s prompt', 30_000, 100);

    // The word is printed whole only by printf (the typed line has it in two halves), then 400 lines push it out.
    const a = `zqx${uid()}`;
    const b = `w${uid()}`;
    const word = a + b;
    const end = `end${uid()}`;
    const secret = `sk-ant-api03-${uid()}${uid()}${uid()}`;
    c.request('pane.input', { paneId: shell.id, data: `printf '%s%s\\n' ${a} ${b}; seq 1 400; echo ANTHROPIC_API_KEY=${secret}; echo ${end}\r` });
    await waitFor(() => cli(end, '--kind', 'output').hits.some((h) => h.text === end), 'the last line in the index', 30_000, 200);
    expect(await screen(c, shell.id)).not.toContain(word);
    c.request('pane.input', { paneId: shell.id, data: `false ${uid()}\rexit\r` });
    await waitEnded(c, shell.id);

    const found = cli(word);
    expect(found.code).toBe(0);
    expect(found.hits).toHaveLength(1);
    const hit = found.hits[0]!;
    expect(hit).toMatchObject({ kind: 'output', paneId: shell.id, text: word, folder: st.dir });
    // Its line, counted as the pane printed them: the 400 numbers, the key, then the last word.
    const last = cli(end, '--kind', 'output', '--pane', shell.id).hits.find((h) => h.text === end)!;
    expect(last.line).toBe(hit.line! + 402);
    expect(cli('399', '--kind', 'output', '--pane', shell.id).hits.map((h) => h.line)).toContain(hit.line! + 399);
    // The command the shell integration marked, its exit status and folder; and the one that failed.
    const cmd = cli(a, '--kind', 'command').hits;
    expect(cmd).toEqual([expect.objectContaining({ paneId: shell.id, exitCode: 0, folder: st.dir, text: expect.stringContaining(`printf '%s%s\\n' ${a} ${b}`) })]);
    expect(cli('false', '--kind', 'failed').hits).toEqual([expect.objectContaining({ paneId: shell.id, exitCode: 1 })]);

    // The secret: its line is found, the secret is not, and no byte of it is in the index's files.
    const keyLines = cli('ANTHROPIC_API_KEY', '--kind', 'output').hits;
    expect(keyLines.map((h) => h.text)).toContain('ANTHROPIC_API_KEY=[redacted]');
    expect(cli(secret.slice(-16)).code).toBe(1);

    // A decision and the comment a person wrote on it, in a pane where a program reads.
    const agent = await c.request('pane.create', { cwd: st.dir, command: ['cat'] });
    const folder = paneFolder(statePaths(env), session(), agent.id);
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'assets/surfaces/decision.json'), path.join(folder, 'cache-eviction.json'));
    await waitFor(async () => (await c.request('surface.list', { paneId: agent.id })).some((s) => s.id === 'cache-eviction'), 'the decision on the bench', 30_000, 100);
    const because = `because${uid()}`;
    expect(await c.request('surface.act', { paneId: agent.id, surfaceId: 'cache-eviction', action: 'approve', comment: `keep LRU ${because}, the replay corpus says so` })).toMatchObject({ ok: true });
    const decision = await waitFor(() => cli(because).hits.find((h) => h.kind === 'decision'), 'the decision in the index', 30_000, 200);
    expect(decision).toMatchObject({ paneId: agent.id, ref: 'cache-eviction', text: `approve · LRU on "Cache eviction policy" (cache-eviction) — keep LRU ${because}, the replay corpus says so` });
    // The surface itself is found by what it says.
    expect(cli('replay', '--kind', 'surface').hits).toEqual([expect.objectContaining({ paneId: agent.id, ref: 'cache-eviction' })]);

    // Bad input: one sentence, exit 2.
    const bad = spawnSync(BIN, ['search', 'x', '--kind', 'oops'], { env, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('terminal-delight search: --kind oops is not a kind: use one of command, output, prompt, reply, tool, surface, decision, tick, failed\n');

    await stopService({ env });
    const dbFiles = fs.readdirSync(statePaths(env).state).filter((n) => n.startsWith(DB_FILE));
    expect(dbFiles.length).toBeGreaterThan(0);
    for (const f of dbFiles) expect(fs.readFileSync(path.join(statePaths(env).state, f)).includes(secret.slice(-16))).toBe(false);
  }, 180_000);

  it('gives each command the folder it ran in, though a later cd in the same second moved the pane (OSC 7 from a login shell)', async () => {
    const c = await connect(true);
    const sub = path.join(st.dir, 'sub dir');
    fs.mkdirSync(sub);
    const shell = await c.request('pane.create', { cwd: st.dir });
    await waitFor(async () => (await screen(c, shell.id)).includes('$ '), 'the login shell\'s prompt', 30_000, 100);
    const inSub = `insub${uid()}`;
    const back = `back${uid()}`;
    // Typed at once: the index reads them in one slice, after the pane has moved on.
    await c.request('pane.input', { paneId: shell.id, data: `cd 'sub dir'\rprintf '%s\\n' ${inSub}\rcd ..\recho ${back}\r` });
    await waitFor(() => cli(back, '--kind', 'command').hits.length > 0, 'the last command in the index', 30_000, 200);
    expect(cli(inSub, '--kind', 'command').hits).toEqual([expect.objectContaining({ paneId: shell.id, folder: sub })]);
    // Its output, and the line it was typed on.
    expect(cli(inSub, '--kind', 'output').hits.map((h) => [h.text, h.folder]).sort()).toEqual([[`$ printf '%s\\n' ${inSub}`, sub], [inSub, sub]]);
    expect(cli('cd', '--kind', 'command', '--pane', shell.id).hits.map((h) => [h.text, h.folder]).sort()).toEqual([['cd \'sub dir\'', st.dir], ['cd ..', sub]]);
    expect(cli(back, '--kind', 'command').hits).toEqual([expect.objectContaining({ folder: st.dir })]);
    // The folder filter: what ran below it.
    expect(cli(inSub, '--folder', sub).hits.length).toBeGreaterThan(0);
    expect(cli(back, '--folder', sub).code).toBe(1);
  });

  it('stores no line of a private key cat in a login shell (ssh-keygen ed25519, openssl genrsa), the lines around it found', async () => {
    const ed = path.join(st.dir, 'id_ed25519');
    const rsa = path.join(st.dir, 'rsa.pem');
    expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', ed], { env, encoding: 'utf8' }).status).toBe(0);
    expect(spawnSync('openssl', ['genrsa', '-out', rsa, '2048'], { env, encoding: 'utf8' }).status).toBe(0);
    // The key's body: every line between its markers (the files hold nothing else).
    const body = [ed, rsa].flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l && !l.includes('PRIVATE KEY')));
    expect(body.length).toBeGreaterThan(25);

    const c = await connect(true);
    const shell = await c.request('pane.create', { cwd: st.dir });
    await waitFor(async () => (await screen(c, shell.id)).includes('$ '), 'the login shell\'s prompt', 30_000, 100);
    const before = `before${uid()}`;
    const between = `between${uid()}`;
    const after = `after${uid()}`;
    // Typed as a person types, a command a line: each key's output is its own command's.
    for (const line of [`echo ${before}`, `cat ${ed}`, `echo ${between}`, `cat ${rsa}`, `echo ${after}`]) c.request('pane.input', { paneId: shell.id, data: `${line}\r` });
    await waitFor(() => cli(after, '--kind', 'output').hits.some((h) => h.text === after), 'the last line in the index', 30_000, 200);
    await waitFor(async () => (await screen(c, shell.id)).includes(after), 'the screen', 30_000, 100);
    for (const w of [before, between, after]) expect(cli(w, '--kind', 'output').hits.map((h) => h.text)).toContain(w);
    // Its BEGIN and END lines are found, redacted; no word of its body is.
    expect(cli('redacted', '--kind', 'output', '--pane', shell.id, '--limit', '500').hits.length).toBeGreaterThanOrEqual(body.length + 4);
    for (const l of [body[2]!, body.at(-2)!]) expect(cli(l.split(/[+/=]/).sort((a, b) => b.length - a.length)[0]!).code).toBe(1);
    const state = statePaths(env).state;
    const noBody = (): void => {
      const files = fs.readdirSync(state).filter((n) => n.startsWith(DB_FILE));
      for (const f of files) {
        const bytes = fs.readFileSync(path.join(state, f));
        for (const l of body) expect(bytes.includes(l), `${f} holds ${l}`).toBe(false);
      }
    };
    // The files as they are while it runs (the WAL holds the newest pages), then after it stopped.
    expect(fs.existsSync(path.join(state, `${DB_FILE}-wal`))).toBe(true);
    noBody();
    await stopService({ env });
    noBody();
    // And the text it keeps (blocks are packed, zstd or deflate: read as the index reads them; a block of entries is their JSON).
    const db = new (sqlite().DatabaseSync)(path.join(state, DB_FILE), { readOnly: true });
    const texts = (db.prepare('SELECT text FROM bodies').all() as Array<{ text: string | Uint8Array }>).map((r) => storedText(r.text)).join('\n');
    db.close();
    expect(texts).toContain(between);
    for (const l of body) expect(texts.includes(l), l).toBe(false);
  }, 180_000);

  it('a kill -9 while it indexes loses nothing that was on disk: the service started again reads on from where it committed', async () => {
    const c = await connect(true);
    const pid = (await c.request('service.info', {})).pid;
    const agent = await c.request('pane.create', { cwd: st.dir, command: ['cat'] });
    const folder = paneFolder(statePaths(env), session(), agent.id);
    fs.mkdirSync(folder, { recursive: true });
    // 30,000 prompts and tool runs (~6 MB): more than one round of reading, so the kill comes in the middle.
    const tag = uid();
    const N = 30_000;
    const lines: string[] = [];
    for (let i = 0; i < N; i++) {
      lines.push(JSON.stringify({ tdac: '0.2', id: `e${i}`, at: new Date().toISOString(), agent: 'codex', ...(i % 2 ? { type: 'tool', tool_name: 'Bash', tool_input: { command: `step w${tag}x${i}z of the migration ${'lorem ipsum '.repeat(10)}` } } : { type: 'prompt', text: `step w${tag}x${i}z of the migration, with some words to make the line as long as a real one ${'lorem ipsum '.repeat(10)}` }) }));
    }
    fs.writeFileSync(path.join(folder, 'inbound.jsonl'), `${lines.join('\n')}\n`);
    await waitFor(async () => {
      const r = await c.request('search.query', { query: `w${tag}x0z`, kind: 'prompt' });
      return r.ok && r.hits.length === 1;
    }, 'the first batch indexed', 30_000, 5);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the service gone', 10_000);

    const c2 = await connect(false);
    expect((await c2.request('service.info', {})).pid).not.toBe(pid);
    await waitFor(async () => {
      const r = await c2.request('search.query', { query: `w${tag}x${N - 1}z`, kind: 'tool' });
      return r.ok && r.hits.length === 1;
    }, 'the last line indexed after the restart', 60_000, 200);
    // Every line once: none lost, none read twice (the cursor is committed with its batch).
    for (let i = 0; i < N; i += 997) {
      const r = await c2.request('search.query', { query: `w${tag}x${i}z` });
      expect(r.ok && r.hits.map((h) => [h.kind, h.agent, h.paneId])).toEqual([[i % 2 ? 'tool' : 'prompt', 'codex', agent.id]]);
    }
    const all = await c2.request('search.query', { query: 'migration', agent: 'codex', limit: 500 });
    expect(all.ok && all.hits.length).toBe(500);
    // The database the kill left passed its check: nothing was moved aside.
    expect(fs.readdirSync(statePaths(env).state).filter((n) => n.includes('.corrupt-'))).toEqual([]);
  }, 180_000);
});
