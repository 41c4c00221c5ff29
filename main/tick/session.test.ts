import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DirectTick, spawnDirect } from './process.ts';
import { initialize, type RequestResult, TickSession } from './session.ts';

const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');
const started: DirectTick[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.terminate(200)));
});

async function open(scenario: string, limits = {}): Promise<DirectTick> {
  const t = spawnDirect([process.execPath, SCRIPTED, scenario], { limits });
  started.push(t);
  const init = await initialize(t.session);
  expect(init).toMatchObject({ ok: true });
  return t;
}

function alive(t: DirectTick): boolean {
  return t.child.exitCode === null && t.child.signalCode === null;
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A session over in-memory streams: what the host wrote, and a kill counter. */
function memory(limits = {}) {
  const written: string[] = [];
  let kills = 0;
  const session = new TickSession({ write: (l) => written.push(l), kill: () => kills++ }, { limits });
  const feed = (s: string) => session.feed(Buffer.from(s));
  const reply = (id: number, result: unknown) => feed(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
  const descriptor = { protocol: 3, kind: 'k', title: 'T', description: '', revision: '1', tools: [{ name: 'm', description: '', input_schema: { type: 'object' }, mutates: true }] };
  const ready = async () => {
    const d = session.describe();
    reply(1, descriptor);
    await d;
    const r = session.read();
    reply(2, { seq: 0, data: null });
    await r;
  };
  return { session, written, kills: () => kills, feed, reply, ready };
}

describe('session engine over in-memory streams', () => {
  it('frames lines split across chunks and joined in one chunk', async () => {
    const m = memory();
    const d = m.session.describe();
    const r = m.session.read();
    const line1 = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocol: 3, kind: 'k', title: 'T', revision: 'r', tools: [] } });
    m.feed(line1.slice(0, 10));
    m.feed(line1.slice(10) + '\n' + JSON.stringify({ jsonrpc: '2.0', id: 2, result: { seq: 4, data: 1 } }) + '\n');
    expect((await d).ok).toBe(true);
    expect(await r).toMatchObject({ ok: true, result: { seq: 4, data: 1, from: 'read' } });
    expect(m.written.map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tick/describe', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tick/read', params: {} },
    ]);
  });

  it('ends the session on a line past the limit without waiting for its newline', async () => {
    const m = memory({ lineBytes: 1000 });
    await m.ready();
    const call = m.session.call('m', {}, '1');
    for (let i = 0; i < 3; i++) m.feed('x'.repeat(400));
    expect(m.session.end?.cause).toBe('violation');
    expect(m.session.end?.reason).toMatch(/1000 bytes/);
    expect(m.kills()).toBe(1);
    expect(await call).toMatchObject({ ok: false, outcome: 'unknown', sent: true });
  });

  it('ends the session when output stops without a newline', async () => {
    const m = memory();
    await m.ready();
    m.feed('{"jsonrpc":"2.0"');
    m.session.eof();
    expect(m.session.end).toMatchObject({ cause: 'violation', reason: expect.stringMatching(/without a terminating newline/) });
  });

  it('queues requests past 8 in flight and sends them as answers arrive', async () => {
    const m = memory();
    await m.ready();
    const calls = Array.from({ length: 10 }, () => m.session.call('m', {}, '1'));
    expect(m.session.inFlightCount).toBe(8);
    expect(m.session.queuedCount).toBe(2);
    expect(m.written).toHaveLength(2 + 8);
    m.reply(5, 'five'); // out of order
    expect(m.written).toHaveLength(11);
    expect(JSON.parse(m.written[10]).id).toBe(11);
    expect(await calls[2]).toMatchObject({ ok: true, outcome: 'executed', result: 'five', id: 5 });
  });

  it('refuses a call whose revision is stale, or whose args break the schema, without sending it', async () => {
    const m = memory();
    await m.ready();
    expect(await m.session.call('m', {}, '0')).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, error: { code: -32004 } });
    expect(await m.session.call('nope', {}, '1')).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, error: { code: -32602 } });
    expect(await m.session.call('m', [1], '1')).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, error: { code: -32602 } });
    expect(m.written).toHaveLength(2);
  });

  it('never sends a queued call whose revision changed while it waited', async () => {
    const m = memory({ inFlight: 1 });
    await m.ready();
    const redescribe = m.session.redescribe()!;
    const queued = m.session.call('m', {}, '1');
    expect(m.session.queuedCount).toBe(1);
    m.reply(3, { protocol: 3, kind: 'k', title: 'T', revision: '2', tools: [{ name: 'm', input_schema: { type: 'object' }, mutates: true }] });
    await redescribe;
    expect(await queued).toMatchObject({ ok: false, outcome: 'not_executed', sent: false, error: { code: -32004 } });
    expect(m.written).toHaveLength(3);
  });

  it('takes updates before initialization ends', async () => {
    const m = memory();
    m.feed(JSON.stringify({ jsonrpc: '2.0', method: 'tick/update', params: { seq: 7, data: { early: true } } }) + '\n');
    const d = m.session.describe();
    m.reply(1, { protocol: 3, kind: 'k', title: 'T', revision: '1', tools: [] });
    expect((await d).ok).toBe(true);
    const r = m.session.read();
    expect(JSON.parse(m.written[1])).toMatchObject({ id: 2, method: 'tick/read' });
    m.reply(2, { seq: 6, data: {} }); // below the floor 7 set by the early update
    expect(await r).toMatchObject({ ok: false, reason: expect.stringMatching(/below the read floor 7/) });
    expect(m.session.latest).toMatchObject({ seq: 7, data: { early: true } });
  });

  it('keeps the latest state by seq and counts merged updates', () => {
    const m = memory();
    for (let i = 1; i <= 5; i++) m.feed(JSON.stringify({ jsonrpc: '2.0', method: 'tick/update', params: { seq: i, data: { i }, at: '2026-11-30T00:00:00.5+01:00' } }) + '\n');
    expect(m.session.counters.updates).toBe(5);
    expect(m.session.latest).toMatchObject({ seq: 5, data: { i: 5 }, from: 'update', at: '2026-11-30T00:00:00.5+01:00' });
  });
});

describe('session engine against real Tick processes', () => {
  const violations: Array<[string, RegExp]> = [
    ['not-json', /not valid JSON/],
    ['bad-jsonrpc', /jsonrpc is "1.0"/],
    ['no-id-no-method', /neither an integer id nor a method/],
    ['null-id', /neither an integer id nor a method \(id null\)/],
    ['string-id', /neither an integer id nor a method \(id "\d+"\)/],
    ['no-newline', /without a terminating newline/],
    ['long-line', /without a newline/],
    ['update-null-data', /null data/],
    ['update-seq-repeat', /not above the previous update/],
    ['update-bad-at', /not an RFC 3339/],
    ['update-too-big', /over the 524288-byte limit/],
  ];
  for (const [scenario, reason] of violations) {
    it(`violation ${scenario}: ends the session, kills the Tick, in-flight calls unknown, queued ones not executed`, async () => {
      const t = await open(scenario);
      if (scenario.startsWith('update-')) {
        expect((await t.session.call('poke', { n: 1 }, '1')).ok).toBe(true); // one good update first
      }
      const slow = t.session.call('slowpoke', { ms: 5000 }, '1');
      const go = t.session.call('go', {}, '1');
      const results = await Promise.all([slow, go]);
      expect(t.session.end).toMatchObject({ cause: 'violation', reason: expect.stringMatching(reason) });
      for (const r of results) expect(r).toMatchObject({ ok: false, outcome: 'unknown', sent: true });
      expect(await t.session.call('poke', { n: 1 }, '1')).toMatchObject({ outcome: 'not_executed', sent: false });
      await t.exited;
      expect(alive(t)).toBe(false);
    });
  }

  const requestFailures: Array<[string, Partial<RequestResult>, RegExp]> = [
    ['both', { outcome: 'unknown' }, /both result and error/],
    ['neither', { outcome: 'unknown' }, /neither result nor error/],
    ['result-too-big', { outcome: 'executed' }, /over the 8388608-byte limit/],
    ['fail-malformed', { outcome: 'unknown' }, /malformed error/],
  ];
  for (const [scenario, expected, reason] of requestFailures) {
    it(`request-level failure ${scenario}: fails that request only`, async () => {
      const t = await open(scenario);
      const r = await t.session.call('go', {}, '1');
      expect(r).toMatchObject({ ok: false, sent: true, ...expected, reason: expect.stringMatching(reason) });
      expect(t.session.ended).toBe(false);
      expect(await t.session.call('poke', { n: 2 }, '1')).toMatchObject({ ok: true, outcome: 'executed', result: { n: 2 } });
      expect(alive(t)).toBe(true);
    });
  }

  it('request-level failure: a read below the read floor fails that read only', async () => {
    const t = await open('read-below-floor');
    await t.session.call('poke', { n: 1 }, '1');
    const r = await t.session.read();
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/below the read floor 1/) });
    expect(t.session.ended).toBe(false);
  });

  it('maps error codes to outcomes', async () => {
    for (const [scenario, outcome] of [['fail-32000', 'executed'], ['fail-32001', 'not_executed'], ['fail-32603', 'executed']] as const) {
      const t = await open(scenario);
      expect(await t.session.call('go', {}, '1')).toMatchObject({ ok: false, outcome, sent: true });
    }
  });

  it('ignores other notifications, requests from the Tick and unmatched responses, and counts them', async () => {
    const t = await open('noise');
    expect(await t.session.call('go', {}, '1')).toMatchObject({ ok: true, result: { ok: true } });
    expect(t.session.counters).toMatchObject({ ignoredNotifications: 1, requestsFromTick: 1, unmatchedResponses: 1 });
  });

  it('a Tick that exits ends the session with in-flight calls unknown', async () => {
    const t = await open('exit');
    const slow = t.session.call('slowpoke', { ms: 5000 }, '1');
    const go = await t.session.call('go', {}, '1');
    expect(go).toMatchObject({ outcome: 'unknown' });
    expect(await slow).toMatchObject({ outcome: 'unknown' });
    expect(t.session.end).toMatchObject({ cause: 'exit', reason: 'the Tick exited with code 3' });
  });

  it('times a call out as unknown, then records its late response without changing anything, never resending', async () => {
    const sentCalls: string[] = [];
    const t = spawnDirect([process.execPath, SCRIPTED, 'good'], {
      limits: { callMs: 300 },
      wire: (dir, chunk) => {
        if (dir === 'in' && chunk.includes('"tick/call"')) sentCalls.push(chunk.toString());
      },
    });
    started.push(t);
    expect((await initialize(t.session)).ok).toBe(true);
    const r = await t.session.call('slowpoke', { ms: 800 }, '1');
    expect(r).toMatchObject({ ok: false, outcome: 'unknown', sent: true, reason: expect.stringMatching(/did not answer tick\/call within 0.3 s/) });
    await until(() => t.session.counters.lateResponses === 1);
    expect(t.session.late[0]).toMatchObject({ method: 'tick/call', ok: true });
    expect(t.session.latest?.seq).toBe(1); // the update the late call made is taken normally
    expect(sentCalls).toHaveLength(1);
  });

  it('runs 8 calls at once at most, queues the 9th, and matches answers out of order', async () => {
    const t = await open('good');
    const ms = [900, 800, 700, 600, 500, 400, 300, 200, 100];
    const calls = ms.map((m) => t.session.call('slow', { ms: m }, '1'));
    expect(t.session.inFlightCount).toBe(8);
    expect(t.session.queuedCount).toBe(1);
    const results = await Promise.all(calls);
    results.forEach((r, i) => expect(r).toMatchObject({ ok: true, result: { ms: ms[i] } }));
    expect(await t.session.call('stats', {}, '1')).toMatchObject({ result: { maxRunning: 8 } });
  });

  it('takes updates interleaved with responses, and a flood of 10,000 leaves the latest state', async () => {
    const t = await open('good');
    const [slow, flood] = await Promise.all([t.session.call('slowpoke', { ms: 50 }, '1'), t.session.call('flood', { count: 10_000 }, '1')]);
    expect(slow.ok && flood.ok).toBe(true);
    await until(() => t.session.counters.updates === 10_001);
    expect(t.session.latest).toMatchObject({ seq: 10_001, data: { n: 10_001 } });
    expect(t.session.ended).toBe(false);
  });

  it('re-describes after -32004 and refuses calls against the old revision', async () => {
    const t = await open('good');
    await t.session.call('bump_revision', {}, '1');
    const stale = await t.session.call('poke', { n: 1 }, '1');
    // The host still believed in revision 1, so it sent the call; the Tick refused it.
    expect(stale).toMatchObject({ ok: false, outcome: 'not_executed', error: { code: -32004 } });
    await until(() => t.session.catalog?.descriptor.revision === '2');
    expect(await t.session.call('poke', { n: 1 }, '1')).toMatchObject({ outcome: 'not_executed', sent: false, error: { code: -32004 } });
    expect(await t.session.call('poke', { n: 1 }, '2')).toMatchObject({ ok: true, outcome: 'executed' });
  });

  it('fails the newest call when response buffers pass their cap', async () => {
    const m = memory({ responseBuffersBytes: 1000 });
    await m.ready();
    const older = m.session.call('m', {}, '1');
    const newer = m.session.call('m', {}, '1');
    const big = JSON.stringify({ jsonrpc: '2.0', id: 3, result: 'z'.repeat(1200) });
    m.feed(big.slice(0, 1100));
    expect(await newer).toMatchObject({ ok: false, outcome: 'unknown', reason: expect.stringMatching(/response buffers/) });
    m.feed(big.slice(1100) + '\n');
    expect(await older).toMatchObject({ ok: true, outcome: 'executed' });
  });

  it('fails initialization on a bad descriptor, an old protocol and a slow describe', async () => {
    for (const [scenario, reason] of [
      ['describe-bad-schema', /not a valid JSON Schema/],
      ['protocol-2', /^unsupported Tick protocol version 2; this host speaks Tick protocol 3$/],
    ] as const) {
      const t = spawnDirect([process.execPath, SCRIPTED, scenario]);
      started.push(t);
      expect(await initialize(t.session)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    }
    const t = spawnDirect([process.execPath, SCRIPTED, 'describe-slow'], { limits: { initMs: 500 } });
    started.push(t);
    expect(await initialize(t.session)).toEqual({ ok: false, reason: expect.stringMatching(/initialization passed 0.5 s in all|within 0.5 s/) });
  });
});
