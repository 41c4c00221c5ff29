/**
 * Usage on a real pane of a real app: the agent's session event names its transcript, the
 * transcript grows with scripted usage, and the pane's info (what its header shows) carries
 * the tokens and the cost at the repository's price file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { fakeAgent, tempState, waitFor } from '../panes/testing.ts';
import { loadPrices } from './prices.ts';
import { dayOf } from './transcripts.ts';
import { LOOK_MAX, subagentFiles, TRANSCRIPT_LINE_MAX } from './service.ts';
import { opencodeRead, opencodeTokens } from './opencode.ts';
import { sqlite } from '../search/index.ts';

let state: ReturnType<typeof tempState>;
let app: App;
beforeEach(async () => {
  state = tempState();
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
});
afterEach(async () => {
  await app.dispose();
  state.cleanup();
});

const assistant = (id: string, model: string, u: Record<string, number>) => JSON.stringify({ type: 'assistant', sessionId: 's1', message: { id, role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], usage: u } });
/** A pane's `session` event naming its Claude Code transcript, as the hook writes it (a line of inbound.jsonl). */
const sessionEvent = (id: string, transcript: string, extra: Record<string, string> = {}) => `${JSON.stringify({ tdac: '0.2', id, at: new Date().toISOString(), agent: 'claude', type: 'session', transcript_path: transcript, ...extra })}\n`;
/** Claude Code's project folder in the test's HOME, made. */
function claudeProject(): string {
  const project = path.join(state.dir, 'home', '.claude', 'projects', 'p');
  fs.mkdirSync(project, { recursive: true });
  return project;
}
/** A pane folder of an earlier service's session, its pane long gone, whose agent named `transcript`. */
function earlierPane(name: string, id: string, transcript: string): string {
  const folder = path.join(state.dir, 'state', 'terminal-delight', 'surfaces', 'earlier', name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'inbound.jsonl'), sessionEvent(id, transcript));
  return folder;
}

/** A Claude Code transcript of at least `bytes`: a 4,000-character prompt, then a message (`<prefix><i>`) with `usage`, over and over; how many messages. */
function longTranscript(file: string, bytes: number, prefix: string, usage: Record<string, number>): number {
  const filler = JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(4000) } });
  const fd = fs.openSync(file, 'w');
  let n = 0;
  try {
    for (let size = 0; size < bytes; n++) {
      const a = assistant(`${prefix}${n}`, 'claude-sonnet-4-5', usage);
      fs.writeSync(fd, `${filler}\n${a}\n`);
      size += filler.length + a.length + 2;
    }
  } finally {
    fs.closeSync(fd);
  }
  return n;
}

describe('usage of an agent pane', () => {
  it('is the scripted usage × the price file, kept up as the transcript grows; an unknown model shows tokens only', async () => {
    // A program named claude (it only waits), so the pane knows its agent.
    const fake = fakeAgent(state.dir, 'claude');
    const pane = app.panes.create({ command: [fake] });
    const transcript = path.join(state.dir, 'session.jsonl');
    fs.writeFileSync(transcript, `${assistant('m1', 'claude-sonnet-4-5-20250929', { input_tokens: 1200, output_tokens: 800, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 4_000 })}\n`);
    const folder = app.panes.folder(pane.id);
    fs.mkdirSync(folder, { recursive: true });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), sessionEvent('e1', transcript, { cwd: state.dir }));

    const p = loadPrices().models['claude-sonnet-4-5']!;
    const first = await waitFor(() => app.panes.get(pane.id)?.usage, 'the pane\'s usage', 15_000, 100);
    expect(first).toEqual({
      model: 'claude-sonnet-4-5-20250929', input: 1200, output: 800, cacheRead: 50_000, cacheWrite: 4_000,
      cost: (1200 * p.input + 800 * p.output + 50_000 * p.cacheRead + 4_000 * p.cacheWrite) / 1e6,
      currency: 'USD', pricesDate: loadPrices().date,
    });
    // The session goes on: a second message (written as two lines, one a block).
    const second = assistant('m2', 'claude-sonnet-4-5-20250929', { input_tokens: 30, output_tokens: 200, cache_read_input_tokens: 55_000 });
    fs.appendFileSync(transcript, `${second}\n${second}\n`);
    const grown = await waitFor(() => (app.panes.get(pane.id)?.usage?.output === 1000 ? app.panes.get(pane.id)!.usage : undefined), 'the grown usage', 15_000, 100);
    expect(grown.cost).toBeCloseTo((1230 * p.input + 1000 * p.output + 105_000 * p.cacheRead + 4_000 * p.cacheWrite) / 1e6, 12);
    // A model the price file does not list: tokens only, and which model it was.
    fs.appendFileSync(transcript, `${assistant('m3', 'local-llama-70b', { input_tokens: 5, output_tokens: 5 })}\n`);
    const unpriced = await waitFor(() => app.panes.get(pane.id)?.usage?.unpriced, 'the unpriced model', 15_000, 100);
    expect(unpriced).toEqual(['local-llama-70b']);
    expect(app.panes.get(pane.id)!.usage!.cost).toBeUndefined();

    // The Usage view's summary: a row a day and model, priced where the model has a price.
    const res = await app.core.request('usage.summary', {}, { id: 'w' });
    if (!res.ok) throw new Error(res.error);
    const today = dayOf(Date.now());
    expect(res.summary.rows.map(({ day, paneId, agent, model, input, output, cost }) => ({ day, paneId, agent, model, input, output, priced: cost !== undefined }))).toEqual([
      { day: today, paneId: pane.id, agent: 'claude', model: 'claude-sonnet-4-5-20250929', input: 1230, output: 1000, priced: true },
      { day: today, paneId: pane.id, agent: 'claude', model: 'local-llama-70b', input: 5, output: 5, priced: false },
    ]);
    expect(res.summary.rows[0]!.cost).toBeCloseTo(grown.cost!, 12);
    expect(await app.core.request('usage.summary', { since: '2999-01-01' }, { id: 'w' })).toMatchObject({ ok: true, summary: { rows: [] } });
    expect(await app.core.request('usage.summary', { since: 'yesterday-ish' }, { id: 'w' })).toEqual({ ok: false, error: '"yesterday-ish" is not a date: give one like 2026-12-01' });
  }, 60_000);
});

describe('usage across a restart of the service', () => {
  const line = (id: string, input: number, output: number, extra: Record<string, unknown> = {}) => JSON.stringify({ type: 'assistant', timestamp: '2026-12-04T10:00:00Z', ...extra, message: { id, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: input, output_tokens: output } } });
  const sessionIn = (folder: string, transcript: string, sessionId: string) => {
    fs.mkdirSync(folder, { recursive: true });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), sessionEvent(`e-${sessionId}`, transcript, { session_id: sessionId, cwd: state.dir }));
  };
  const rowsOf = async (a: App) => {
    const res = await a.core.request('usage.summary', {}, { id: 'w' });
    if (!res.ok) throw new Error(res.error);
    return res.summary.rows;
  };
  const figures = (rows: Awaited<ReturnType<typeof rowsOf>>) => rows.map(({ paneId, sessionId, transcript, model, input, output, cacheRead, cacheWrite, cost }) => ({ paneId, sessionId, transcript, model, input, output, cacheRead, cacheWrite, cost }));

  it('keeps every session the app has seen: a pane\'s earlier session and a closed pane\'s, read on from where it stopped (and found again from the pane folders without the kept counts)', async () => {
    const fake = fakeAgent(state.dir, 'claude');
    const projects = claudeProject();
    const t1 = path.join(projects, 's1.jsonl');
    const t2 = path.join(projects, 's2.jsonl');
    const t3 = path.join(projects, 's3.jsonl');
    fs.writeFileSync(t1, `${line('m1', 100, 10)}\n`);
    fs.writeFileSync(t2, `${line('m2', 200, 20)}\n`);
    fs.writeFileSync(t3, `${line('m3', 300, 30)}\n${line('m4', 7, 3)}\n`);
    // Pane A: session s1, then s2 (s1 its earlier session); pane B: s3, then closed.
    const a = app.panes.create({ command: [fake], title: 'pane A' });
    const b = app.panes.create({ command: [fake], title: 'pane B' });
    sessionIn(app.panes.folder(a.id), t1, 's1');
    await waitFor(() => app.panes.get(a.id)?.usage?.input === 100, 'pane A\'s first session', 15_000, 100);
    sessionIn(app.panes.folder(a.id), t2, 's2');
    sessionIn(app.panes.folder(b.id), t3, 's3');
    await waitFor(() => app.panes.get(a.id)?.usage?.input === 200 && app.panes.get(b.id)?.usage?.input === 307, 'both panes\' sessions', 15_000, 100);
    app.panes.close(b.id);
    const before = await rowsOf(app);
    expect(figures(before).map(({ paneId, sessionId, input, output }) => ({ paneId, sessionId, input, output }))).toEqual([
      { paneId: a.id, sessionId: 's1', input: 100, output: 10 },
      { paneId: a.id, sessionId: 's2', input: 200, output: 20 },
      { paneId: b.id, sessionId: 's3', input: 307, output: 33 },
    ].sort((x, y) => x.paneId.localeCompare(y.paneId)));
    const titleB = before.find((r) => r.sessionId === 's3')!.paneTitle;
    expect(titleB).toBeTruthy();

    // A new service over the same state folder (its panes not restored): the same figures.
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const after = await rowsOf(app);
    expect(figures(after)).toEqual(figures(before));
    expect(after.find((r) => r.sessionId === 's3')?.paneTitle).toBe(titleB);
    // The earlier session grows while no service runs, and after: what is new is counted, once.
    fs.appendFileSync(t1, `${line('m5', 1, 1)}\n`);
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    fs.appendFileSync(t1, `${line('m6', 2, 2)}\n`);
    const grown = await rowsOf(app);
    expect(grown.find((r) => r.sessionId === 's1')).toMatchObject({ input: 103, output: 13 });
    expect(grown.find((r) => r.sessionId === 's3')).toMatchObject({ input: 307, output: 33 });

    // Without the counts kept (a lost usage folder): found again from the pane folders' events.
    await app.dispose();
    fs.rmSync(path.join(state.dir, 'state', 'terminal-delight', 'usage'), { recursive: true });
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    expect(figures(await rowsOf(app))).toEqual(figures(grown));
  }, 90_000);
});

describe('usage of a Claude Code session with subagents', () => {
  it('counts its subagents\' (the Task tool\'s) transcripts, subagents/**/agent-*.jsonl beside it, in the session\'s tokens and cost', async () => {
    const fake = fakeAgent(state.dir, 'claude');
    const pane = app.panes.create({ command: [fake] });
    const project = path.join(state.dir, 'home', '.claude', 'projects', 'p');
    const transcript = path.join(project, 'sess.jsonl');
    fs.mkdirSync(path.join(project, 'sess', 'subagents', 'workflows', 'run1'), { recursive: true });
    fs.writeFileSync(transcript, `${assistant('m1', 'claude-sonnet-4-5-20250929', { input_tokens: 1000, output_tokens: 100 })}\n`);
    const sub = path.join(project, 'sess', 'subagents', 'agent-a0123456789abcdef.jsonl');
    const side = (id: string, model: string, u: Record<string, number>) => JSON.stringify({ type: 'assistant', isSidechain: true, agentId: 'a0123456789abcdef', sessionId: 'sess', message: { id, role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], usage: u } });
    fs.writeFileSync(sub, `${side('s1', 'claude-haiku-4-5-20251001', { input_tokens: 400, output_tokens: 40, cache_read_input_tokens: 2000 })}\n`);
    fs.writeFileSync(path.join(project, 'sess', 'subagents', 'workflows', 'run1', 'agent-wf.jsonl'), `${side('s2', 'claude-haiku-4-5-20251001', { input_tokens: 10, output_tokens: 1 })}\n`);
    const folder = app.panes.folder(pane.id);
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), sessionEvent('e1', transcript, { cwd: state.dir }));

    const prices = loadPrices().models;
    const sonnet = prices['claude-sonnet-4-5']!;
    const haiku = prices['claude-haiku-4-5']!;
    const usage = await waitFor(() => (app.panes.get(pane.id)?.usage?.input === 1410 ? app.panes.get(pane.id)!.usage : undefined), 'the session\'s and its subagents\' usage', 15_000, 100);
    expect(usage).toMatchObject({ input: 1410, output: 141, cacheRead: 2000, cacheWrite: 0 });
    expect(usage.cost).toBeCloseTo((1000 * sonnet.input + 100 * sonnet.output + 410 * haiku.input + 41 * haiku.output + 2000 * haiku.cacheRead) / 1e6, 12);
    // A subagent that starts later, and one that goes on: read on.
    fs.appendFileSync(sub, `${side('s3', 'claude-haiku-4-5-20251001', { input_tokens: 5, output_tokens: 5 })}\n`);
    fs.writeFileSync(path.join(project, 'sess', 'subagents', 'agent-b.jsonl'), `${side('s4', 'claude-haiku-4-5-20251001', { input_tokens: 5, output_tokens: 5 })}\n`);
    await waitFor(() => app.panes.get(pane.id)?.usage?.input === 1420, 'the subagents\' later usage', 15_000, 100);
  }, 60_000);
});

describe('a long transcript of a pane gone', () => {
  it('is read on a slice a look until its end, no summary asked', async () => {
    const project = claudeProject();
    const transcript = path.join(project, 'long.jsonl');
    const n = longTranscript(transcript, 10 * 1024 * 1024, 'm', { input_tokens: 1, output_tokens: 2 });
    // A pane folder of an earlier service's session, its pane long gone.
    const folder = earlierPane('pgone', 'e1', transcript);
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    // What the service keeps of the session (usage/sessions/), written as it reads.
    const kept = () => {
      const dir = path.join(state.dir, 'state', 'terminal-delight', 'usage', 'sessions');
      const v = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!), 'utf8')) as { files: Record<string, [number, number]> };
      return v.files[transcript]?.[0] === fs.statSync(transcript).size;
    };
    await waitFor(kept, 'the whole transcript read', 30_000, 200);
    const res = await app.core.request('usage.summary', {}, { id: 'w' });
    if (!res.ok) throw new Error(res.error);
    expect(res.summary.rows.map((r) => [r.paneId, r.input, r.output])).toEqual([['pgone', n, 2 * n]]);
  }, 60_000);
});

describe('a transcript with a line without end', () => {
  it('drops a line longer than TRANSCRIPT_LINE_MAX (its cursor moves on past it, nothing kept of it) and counts what follows', async () => {
    const project = claudeProject();
    const transcript = path.join(project, 'endless.jsonl');
    fs.writeFileSync(transcript, 'x'.repeat(TRANSCRIPT_LINE_MAX + 1024));
    const folder = earlierPane('pgone', 'e1', transcript);
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const kept = () => {
      const dir = path.join(state.dir, 'state', 'terminal-delight', 'usage', 'sessions');
      const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
      const v = names[0] ? JSON.parse(fs.readFileSync(path.join(dir, names[0]), 'utf8')) as { files: Record<string, [number, number] | number> } : undefined;
      const c = v?.files[transcript];
      return Array.isArray(c) ? c[0] : c;
    };
    // The cursor moves past the line (one kept whole in memory would leave it at 0).
    await waitFor(() => (kept() ?? 0) >= TRANSCRIPT_LINE_MAX, 'the overlong line passed', 30_000, 200);
    fs.appendFileSync(transcript, `tail of it\n${assistant('m1', 'claude-sonnet-4-5', { input_tokens: 9, output_tokens: 4 })}\n`);
    const res = await waitFor(async () => {
      const r = await app.core.request('usage.summary', {}, { id: 'w' });
      return r.ok && r.summary.rows.length ? r.summary.rows : undefined;
    }, 'the message after it', 15_000, 200);
    expect(res.map((r) => [r.input, r.output])).toEqual([[9, 4]]);
  }, 60_000);
});

describe('a transcript replaced or cut short', () => {
  it('is counted again from its start by a new reader (its earlier counts dropped), while the service runs and across a restart', async () => {
    const fake = fakeAgent(state.dir, 'claude');
    const pane = app.panes.create({ command: [fake] });
    const project = claudeProject();
    const transcript = path.join(project, 's.jsonl');
    const msg = (id: string, n: number) => assistant(id, 'claude-sonnet-4-5', { input_tokens: n, output_tokens: 1 });
    fs.writeFileSync(transcript, `${msg('m1', 100)}\n${msg('m2', 200)}\n`);
    fs.appendFileSync(path.join(app.panes.folder(pane.id), 'inbound.jsonl'), sessionEvent('e1', transcript));
    await waitFor(() => app.panes.get(pane.id)?.usage?.input === 300, 'the first file\'s usage', 15_000, 100);
    // Replaced (a new file renamed over it, longer than the old one): only the new one's messages.
    const replace = (text: string) => {
      fs.writeFileSync(`${transcript}.tmp`, text);
      fs.renameSync(`${transcript}.tmp`, transcript);
    };
    replace(`${msg('n1', 7)}\n${msg('n2', 8)}\n${msg('n3', 9)}\n${'{"type":"user","pad":"'}${'p'.repeat(400)}"}\n`);
    await waitFor(() => app.panes.get(pane.id)?.usage?.input === 24, 'the replaced file\'s usage', 15_000, 100);
    // Cut short in place (the same inode, smaller): counted again from its start.
    fs.writeFileSync(transcript, `${msg('k1', 5)}\n`);
    await waitFor(() => app.panes.get(pane.id)?.usage?.input === 5, 'the truncated file\'s usage', 15_000, 100);
    // Replaced while no service runs: the kept inode tells.
    await app.dispose();
    replace(`${msg('r1', 40)}\n${msg('r2', 2)}\n${'{"type":"user","pad":"'}${'p'.repeat(400)}"}\n`);
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const res = await app.core.request('usage.summary', {}, { id: 'w' });
    if (!res.ok) throw new Error(res.error);
    expect(res.summary.rows.map((r) => r.input)).toEqual([42]);
  }, 60_000);
});

describe('a Claude Code session\'s subagents\' files', () => {
  it('are subagents/**/agent-*.jsonl beside its transcript, no other file', () => {
    const root = path.join(state.dir, 'p', 'sess', 'subagents');
    fs.mkdirSync(path.join(root, 'workflows', 'run1'), { recursive: true });
    for (const f of ['agent-a.jsonl', 'workflows/run1/agent-b.jsonl', 'notes.jsonl', 'agent-c.json', 'workflows/other.jsonl', 'my-agent-d.jsonl']) fs.writeFileSync(path.join(root, f), '');
    expect(subagentFiles(path.join(state.dir, 'p', 'sess.jsonl'))).toEqual([path.join(root, 'agent-a.jsonl'), path.join(root, 'workflows/run1/agent-b.jsonl')]);
    expect(subagentFiles(path.join(state.dir, 'p', 'sess.txt'))).toEqual([]);
  });
});

describe('many old sessions at a first look (an upgrade)', () => {
  it('are read at most LOOK_MAX bytes a look over every file (a slice more at most), the rest at the next looks, until all is counted', async () => {
    const project = claudeProject();
    const filler = JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(4000) } });
    const files = 12;
    let total = 0;
    for (let f = 0; f < files; f++) {
      const transcript = path.join(project, `old${f}.jsonl`);
      const fd = fs.openSync(transcript, 'w');
      for (let size = 0; size < 3 * 1024 * 1024; total++) {
        const a = assistant(`f${String(f).padStart(2, '0')}m${total}`, 'claude-sonnet-4-5', { input_tokens: 1, output_tokens: 1 });
        fs.writeSync(fd, `${filler}\n${a}\n`);
        size += filler.length + a.length + 2;
      }
      fs.closeSync(fd);
      const folder = earlierPane(`p${f}`, `e${f}`, transcript);
    }
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const counted = async () => {
      const res = await app.core.request('usage.summary', {}, { id: 'w' });
      if (!res.ok) throw new Error(res.error);
      return res.summary.rows.reduce((n, r) => n + r.input, 0);
    };
    // A summary is a look: ~36 MB waiting, at most 12 MiB of it read (an interval's look before it at most as much).
    const bytesPerMessage = (files * 3 * 1024 * 1024) / total;
    const first = await counted();
    expect(first * bytesPerMessage).toBeLessThan(2 * (LOOK_MAX + 4 * 1024 * 1024) + 2 * bytesPerMessage * files);
    await waitFor(async () => (await counted()) === total, 'every session counted', 30_000, 100);
  }, 90_000);
});

describe('a pane folder left for a later look (the look\'s bytes spent on a running pane\'s session)', () => {
  it('is read on, and the session it names counted, with no summary asked', async () => {
    const project = claudeProject();
    const big = path.join(project, 'big.jsonl');
    longTranscript(big, LOOK_MAX + 8 * 1024 * 1024, 'b', { input_tokens: 1, output_tokens: 1 });
    const small = path.join(project, 'small.jsonl');
    fs.writeFileSync(small, `${assistant('s1', 'claude-sonnet-4-5', { input_tokens: 3, output_tokens: 3 })}\n`);
    const gone = earlierPane('pgone', 'e1', small);
    await app.dispose();
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const pane = app.panes.create({ command: [fakeAgent(state.dir, 'claude')] });
    fs.appendFileSync(path.join(app.panes.folder(pane.id), 'inbound.jsonl'), sessionEvent('e2', big));
    const cursor = (file: string) => {
      const dir = path.join(state.dir, 'state', 'terminal-delight', 'usage', 'sessions');
      for (const n of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        const c = (JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as { files: Record<string, [number, number]> }).files[file];
        if (c) return c[0];
      }
      return undefined;
    };
    await waitFor(() => cursor(small) === fs.statSync(small).size && cursor(big) === fs.statSync(big).size, 'both sessions read', 30_000, 200);
  }, 60_000);
});

describe('an OpenCode session in its database', () => {
  it('is read on: a summary with nothing new reads no row, then only the rows written since (new and updated); a removed message is gone; the figures those of a whole read', async () => {
    // OpenCode's database as OpenCode 1.18 makes it (WAL; table message, its index), kept open as OpenCode keeps it.
    const dir = path.join(state.env.XDG_DATA_HOME!, 'opencode');
    fs.mkdirSync(dir, { recursive: true });
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(path.join(dir, 'opencode.db'));
    try {
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)');
      db.exec('CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)');
      const T0 = Date.parse('2026-12-01T10:00:00');
      const data = (role: string, created: number, tokens?: Record<string, unknown>, model = 'claude-sonnet-4-5') => JSON.stringify({ id: 'x', sessionID: 'ses_a', role, modelID: model, providerID: 'td', time: { created }, ...(tokens ? { tokens } : {}) });
      const tok = (input: number, output: number, read = 0) => ({ input, output, reasoning: 1, cache: { read, write: 2 } });
      // OpenCode's upsert of a message: `data` set again, `time_updated` to the write's time.
      const upsert = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated');
      const n = 200;
      for (let i = 0; i < n; i++) {
        const created = T0 + i * 60_000 + (i >= 150 ? 86_400_000 : 0); // the last 50 the next day
        const role = i % 2 ? 'assistant' : 'user';
        upsert.run(`msg_${String(i).padStart(4, '0')}`, 'ses_a', created, created + 1000, data(role, created, role === 'assistant' ? tok(10 + i, i, 100) : undefined, i % 10 === 9 ? 'gpt-5' : 'claude-sonnet-4-5'));
      }
      // A message still streaming (its tokens not all there yet), and another session's.
      const streaming = T0 + 86_400_000 + 300 * 60_000;
      upsert.run('msg_9000', 'ses_a', streaming, streaming, data('assistant', streaming, tok(5, 1)));
      upsert.run('msg_b000', 'ses_b', T0, T0, data('assistant', T0, tok(7, 7)));
      const folder = path.join(state.dir, 'state', 'terminal-delight', 'surfaces', 'earlier', 'poc');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', id: 'e1', at: new Date().toISOString(), agent: 'opencode', type: 'session', session_id: 'ses_a', cwd: state.dir })}\n`);

      /** The summary's figures by day and model; and today's whole read of the session (every row's data in time_created order), alike. */
      const summary = async () => {
        const res = await app.core.request('usage.summary', {}, { id: 'w' });
        if (!res.ok) throw new Error(res.error);
        return res.summary.rows.filter((r) => r.agent === 'opencode').map(({ day, model, input, output, cacheRead, cacheWrite, sessionId }) => ({ day, model, input, output, cacheRead, cacheWrite, sessionId }));
      };
      const whole = () => [...opencodeTokens((db.prepare('SELECT data FROM message WHERE session_id = ? ORDER BY time_created').all('ses_a') as Array<{ data: string }>).map((r) => r.data))]
        .flatMap(([day, models]) => [...models].map(([model, t]) => ({ day, model, ...t, sessionId: 'ses_a' })))
        .sort((a, b) => a.day.localeCompare(b.day) || a.model.localeCompare(b.model));
      const readBy = async () => {
        const before = opencodeRead.rows;
        const rows = await summary();
        return { rows, read: opencodeRead.rows - before };
      };

      const first = await readBy();
      expect(first.rows).toEqual(whole());
      expect(first.rows.map((r) => r.day)).toEqual(['2026-12-01', '2026-12-01', '2026-12-02', '2026-12-02']);
      // Nothing new: no row read again.
      expect(await readBy()).toEqual({ rows: first.rows, read: 0 });

      // Two new messages and the streaming one written again with its final tokens: those three rows read, no other.
      const later = streaming + 3_600_000;
      upsert.run('msg_9001', 'ses_a', later, later, data('user', later));
      upsert.run('msg_9002', 'ses_a', later + 1, later + 1, data('assistant', later + 1, tok(1000, 500, 9000), 'gpt-5'));
      upsert.run('msg_9000', 'ses_a', streaming, later + 2, data('assistant', streaming, tok(5, 321, 44)));
      const grown = await readBy();
      expect(grown.rows).toEqual(whole());
      expect(grown.read).toBe(3);
      expect(grown.rows.find((r) => r.day === '2026-12-02' && r.model === 'gpt-5')!.input).toBe(first.rows.find((r) => r.day === '2026-12-02' && r.model === 'gpt-5')!.input + 1000);
      expect(await readBy()).toEqual({ rows: grown.rows, read: 0 });

      // Another session's message: the database changed; of this session, only the three rows written within UPDATED_SLACK_MS of its newest are read again.
      upsert.run('msg_b001', 'ses_b', later + 3, later + 3, data('assistant', later + 3, tok(7, 7)));
      expect(await readBy()).toEqual({ rows: grown.rows, read: 3 });

      // A message removed (OpenCode's revert): the session read whole again, the message gone from the figures.
      db.prepare('DELETE FROM message WHERE id = ?').run('msg_9002');
      const reverted = await readBy();
      expect(reverted.rows).toEqual(whole());
      expect(reverted.read).toBe(2 + n + 2); // the two rows left within the slack, read on; then its 202 rows, the count one short
      expect(reverted.rows).not.toEqual(grown.rows);
    } finally {
      db.close();
    }
  }, 60_000);
});
