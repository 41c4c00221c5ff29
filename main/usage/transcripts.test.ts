import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPrices, priceOf, sessionUsage, type PriceFile } from './prices.ts';
import { claudeReader, codexReader, dayOf, geminiReader } from './transcripts.ts';
import { opencodeTokens } from './opencode.ts';

const claudeLine = (id: string, model: string, u: Record<string, number>, block = 'text') => JSON.stringify({
  type: 'assistant', sessionId: 's1', requestId: `req_${id}`, timestamp: '2026-12-04T10:00:00Z',
  message: { id, type: 'message', role: 'assistant', model, content: [{ type: block, text: 'x' }], usage: u },
});

describe('claudeReader', () => {
  it('counts each message once (Claude Code writes a line a content block, each with the message\'s usage), by model', () => {
    const r = claudeReader();
    const u1 = { input_tokens: 12, output_tokens: 340, cache_read_input_tokens: 15_000, cache_creation_input_tokens: 2_000 };
    r.feed([
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'hello' } }),
      claudeLine('msg_1', 'claude-sonnet-4-5-20250929', u1, 'thinking'),
      claudeLine('msg_1', 'claude-sonnet-4-5-20250929', u1, 'text'),
      '{"type":"assistant","message":{"id":"torn',
      claudeLine('msg_2', 'claude-haiku-4-5-20251001', { input_tokens: 100, output_tokens: 20 }),
      claudeLine('msg_3', '<synthetic>', { input_tokens: 0, output_tokens: 0 }),
    ]);
    r.feed([claudeLine('msg_4', 'claude-sonnet-4-5-20250929', { input_tokens: 3, output_tokens: 60, cache_read_input_tokens: 17_000 })]);
    expect(Object.fromEntries(r.tokens())).toEqual({
      'claude-sonnet-4-5-20250929': { input: 15, output: 400, cacheRead: 32_000, cacheWrite: 2_000 },
      'claude-haiku-4-5-20251001': { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 },
    });
  });
});

describe('claudeReader, a message\'s usage growing over its lines', () => {
  it('takes the largest of each figure of a message (an early line\'s output count is the API\'s placeholder, message_start\'s), once', () => {
    const r = claudeReader();
    const early = { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 15_000, cache_creation_input_tokens: 2_000 };
    const final = { ...early, output_tokens: 340 };
    r.feed([
      claudeLine('msg_1', 'claude-sonnet-4-5-20250929', early, 'thinking'),
      claudeLine('msg_1', 'claude-sonnet-4-5-20250929', early, 'text'),
      claudeLine('msg_1', 'claude-sonnet-4-5-20250929', final, 'tool_use'),
      claudeLine('msg_2', 'claude-sonnet-4-5-20250929', { input_tokens: 3, output_tokens: 50 }),
      claudeLine('msg_2', 'claude-sonnet-4-5-20250929', { input_tokens: 3, output_tokens: 1 }),
    ]);
    expect(Object.fromEntries(r.tokens())).toEqual({ 'claude-sonnet-4-5-20250929': { input: 15, output: 390, cacheRead: 15_000, cacheWrite: 2_000 } });
  });
});

describe('claudeReader, a resumed session (Claude Code writes its earlier messages into the file again, same ids)', () => {
  it('counts a message met again after many others once, also in a new reader given the saved counts', () => {
    const line = (id: string, n: number) => JSON.stringify({ type: 'assistant', timestamp: '2026-12-04T10:00:00Z', message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: n, output_tokens: n } } });
    const first = Array.from({ length: 200 }, (_, i) => line(`msg_${i}`, 1));
    const r = claudeReader();
    r.feed(first);
    r.feed(first.slice(0, 150)); // the history written again, then new messages
    r.feed([line('msg_new', 5)]);
    expect(r.tokens().get('claude-sonnet-4-5')).toMatchObject({ input: 205, output: 205 });
    const again = claudeReader(JSON.parse(JSON.stringify(r.save())));
    again.feed(first);
    again.feed([line('msg_new', 5), line('msg_newer', 7)]);
    expect(again.tokens().get('claude-sonnet-4-5')).toMatchObject({ input: 212, output: 212 });
  });
});

describe('geminiReader, a message met again after many others', () => {
  it('is counted once', () => {
    const g = (id: string, input: number) => JSON.stringify({ id, timestamp: '2026-12-04T10:00:00Z', type: 'gemini', model: 'gemini-2.5-pro', tokens: { input, output: 0, cached: 0, thoughts: 0 } });
    const r = geminiReader();
    r.feed([g('g0', 10), ...Array.from({ length: 100 }, (_, i) => g(`h${i}`, 1)), g('g0', 10)]);
    expect(r.tokens().get('gemini-2.5-pro')!.input).toBe(110);
    const again = geminiReader(JSON.parse(JSON.stringify(r.save())));
    again.feed([g('g0', 10), g('h5', 1)]);
    expect(again.tokens().get('gemini-2.5-pro')!.input).toBe(110);
  });
});

describe('codexReader', () => {
  const count = (input: number, cached: number, output: number) => JSON.stringify({ timestamp: '2026-12-04T10:00:00Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output }, last_token_usage: {} } } });
  const turn = (model: string) => JSON.stringify({ type: 'turn_context', payload: { cwd: '/x', model } });
  it('takes the running totals (cached input apart from the rest), split where the model changes', () => {
    const r = codexReader();
    r.feed([turn('gpt-5-codex'), count(1000, 600, 200), JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: null } }), count(3000, 2000, 500)]);
    expect(Object.fromEntries(r.tokens())).toEqual({ 'gpt-5-codex': { input: 1000, output: 500, cacheRead: 2000, cacheWrite: 0 } });
    r.feed([turn('gpt-5-mini'), count(4000, 2500, 700)]);
    expect(Object.fromEntries(r.tokens())).toEqual({
      'gpt-5-codex': { input: 1000, output: 500, cacheRead: 2000, cacheWrite: 0 },
      'gpt-5-mini': { input: 500, output: 200, cacheRead: 500, cacheWrite: 0 },
    });
  });
});

describe('prices', () => {
  const prices: PriceFile = { date: '2026-12-01', currency: 'USD', models: { 'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }, 'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 } } };
  it('match a model by its whole name, or its name less a release date (Vertex AI\'s @date too) or -latest, never by a shorter key it starts with', () => {
    expect(priceOf(prices, 'gpt-5-mini-2025-08-07')?.input).toBe(0.25);
    expect(priceOf(prices, 'gpt-5-mini')?.input).toBe(0.25);
    expect(priceOf(prices, 'gpt-5-2025-08-07')?.input).toBe(1.25);
    expect(priceOf(prices, 'gpt-5-latest')?.input).toBe(1.25);
    expect(priceOf(prices, 'gpt-5@20250807')?.input).toBe(1.25); // Vertex AI's names: @date
    expect(priceOf(loadPrices(), 'claude-sonnet-4-5@20250929')).toEqual(priceOf(loadPrices(), 'claude-sonnet-4-5'));
    // A longer version is another model (its price differs): not priced as the one it starts with.
    for (const m of ['gpt-5-codex', 'gpt-5.2', 'gpt-5-mini-high', 'gpt-5-20250807x', 'gpt-5@2025', 'gpt-5@latest', 'llama-3', 'constructor', '__proto__']) expect(priceOf(prices, m), m).toBeUndefined();
  });
  it('the repository\'s price file: Opus 4.5 at its own price (not Opus 4\'s), GPT-5.2 at its own (not GPT-5\'s)', () => {
    const p = loadPrices();
    expect(priceOf(p, 'claude-opus-4-5-20251101')).toMatchObject({ input: 5, output: 25 });
    expect(priceOf(p, 'claude-opus-4-20250514')).toMatchObject({ input: 15, output: 75 });
    expect(priceOf(p, 'claude-opus-4-1-20250805')).toMatchObject({ input: 15, output: 75 });
    expect(priceOf(p, 'gpt-5.2')).toMatchObject({ input: 1.75, output: 14 });
    expect(priceOf(p, 'gpt-5')).toMatchObject({ input: 1.25, output: 10 });
  });
  it('a price file (the newest dated one in its folder): a model it does not list unknown, named, its tokens counted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-prices-'));
    try {
      const price = (input: number, output: number) => ({ input, output, cacheRead: input / 10, cacheWrite: input * 1.25 });
      fs.writeFileSync(path.join(dir, '2026-01-01.json'), JSON.stringify({ date: '2026-01-01', currency: 'USD', models: { 'claude-opus-4-6': price(1, 1) } }));
      fs.writeFileSync(path.join(dir, '2026-02-01.json'), JSON.stringify({ date: '2026-02-01', currency: 'USD', models: { 'claude-opus-4-5': price(5, 25), 'gpt-5.2': price(1.75, 14) } }));
      fs.writeFileSync(path.join(dir, 'notes.json'), '{}');
      const p = loadPrices(dir);
      expect(p.date).toBe('2026-02-01');
      expect(priceOf(p, 'claude-opus-4-5-20251101')).toMatchObject({ input: 5, output: 25 });
      expect(priceOf(p, 'claude-opus-4-6')).toBeUndefined();
      expect(priceOf(p, 'gpt-5.2-codex')).toBeUndefined();
      expect(sessionUsage(new Map([['claude-opus-4-6', { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }]]), p)).toMatchObject({ input: 10, unpriced: ['claude-opus-4-6'] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('price a session at tokens × price per million; a model not listed leaves tokens only, named', () => {
    const priced = sessionUsage(new Map([['gpt-5-2025-08-07', { input: 1_000_000, output: 200_000, cacheRead: 4_000_000, cacheWrite: 0 }]]), prices);
    expect(priced).toEqual({ model: 'gpt-5-2025-08-07', input: 1_000_000, output: 200_000, cacheRead: 4_000_000, cacheWrite: 0, cost: 1.25 + 2 + 0.5, currency: 'USD', pricesDate: '2026-12-01' });
    const unknown = sessionUsage(new Map([['gpt-5', { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }], ['llama-3', { input: 5, output: 5, cacheRead: 0, cacheWrite: 0 }]]), prices);
    expect(unknown.cost).toBeUndefined();
    expect(unknown.unpriced).toEqual(['llama-3']);
    expect(unknown.input).toBe(15);
  });
  it('the repository\'s price file is the newest dated one and lists the agents\' default models', () => {
    const p = loadPrices();
    expect(p.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const m of ['claude-sonnet-4-5-20250929', 'gpt-5-codex', 'gemini-2.5-pro']) expect(priceOf(p, m), m).toBeDefined();
  });
});

describe('geminiReader', () => {
  it('counts each message\'s last record (Gemini CLI writes a message again as it changes), thoughts as output, cached input apart', () => {
    const r = geminiReader();
    const msg = (id: string, tokens?: Record<string, number>) => JSON.stringify({ id, timestamp: '2026-12-04T10:00:00Z', type: 'gemini', content: 'ok', model: 'gemini-2.5-flash', ...(tokens ? { tokens } : {}) });
    r.feed([
      JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: '2026-12-04T10:00:00Z' }),
      JSON.stringify({ id: 'u1', type: 'user', content: 'hi' }),
      msg('g1'),
      msg('g1', { input: 5000, output: 300, cached: 4000, thoughts: 120, tool: 0, total: 5420 }),
      msg('g2', { input: 6000, output: 50, cached: 0, thoughts: 0, tool: 0, total: 6050 }),
    ]);
    expect(Object.fromEntries(r.tokens())).toEqual({ 'gemini-2.5-flash': { input: 7000, output: 470, cacheRead: 4000, cacheWrite: 0 } });
  });
});

describe('tokens by day', () => {
  it('counts each message on the local day of its timestamp', () => {
    const r = claudeReader();
    const line = (id: string, at: string, n: number) => JSON.stringify({ type: 'assistant', timestamp: at, message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: n, output_tokens: n } } });
    r.feed([line('a', '2026-12-01T12:00:00', 10), line('b', '2026-12-02T12:00:00', 5), line('c', '2026-12-02T13:00:00', 1)]);
    expect([...r.byDay()].map(([d, m]) => [d, m.get('claude-sonnet-4-5')!.input])).toEqual([['2026-12-01', 10], ['2026-12-02', 6]]);
    expect(r.tokens().get('claude-sonnet-4-5')!.output).toBe(16);
    expect(dayOf('2026-12-03T08:00:00')).toBe('2026-12-03');
  });
});

describe('OpenCode\'s messages (its database\'s message.data)', () => {
  it('counts assistant messages\' tokens, reasoning as output, by day and model; other messages and bad JSON are left out', () => {
    const msg = (role: string, tokens: unknown, created = Date.parse('2026-12-02T12:00:00')) => JSON.stringify({ id: 'm', role, modelID: 'scripted', providerID: 'td', time: { created }, tokens });
    const days = opencodeTokens([
      msg('user', undefined),
      msg('assistant', { input: 100, output: 20, reasoning: 5, cache: { read: 400, write: 7 } }),
      msg('assistant', { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } }, Date.parse('2026-12-03T12:00:00')),
      msg('assistant', { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }),
      '{not json',
    ]);
    expect([...days].map(([d, m]) => [d, m.get('scripted')])).toEqual([
      ['2026-12-02', { input: 100, output: 25, cacheRead: 400, cacheWrite: 7 }],
      ['2026-12-03', { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }],
    ]);
  });
});

describe('a reader\'s saved counts', () => {
  it('given to a new reader, which reads on, count as one reader that read it all (Claude Code, Codex, Gemini CLI)', () => {
    const c = (id: string, n: number, at = '2026-12-04T10:00:00Z') => JSON.stringify({ type: 'assistant', timestamp: at, message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: n, output_tokens: n, cache_read_input_tokens: 2 * n } } });
    const x = (input: number, output: number) => JSON.stringify({ timestamp: '2026-12-04T10:00:00Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output } } } });
    const g = (id: string, input: number) => JSON.stringify({ id, timestamp: '2026-12-04T10:00:00Z', type: 'gemini', model: 'gemini-2.5-pro', tokens: { input, output: 1, cached: 0, thoughts: 0 } });
    const cases = [
      { make: claudeReader, lines: [c('a', 1), c('b', 2, '2026-12-05T10:00:00Z'), ...Array.from({ length: 100 }, (_, i) => c(`m${i}`, i)), c('a', 1), c('z', 3)] },
      { make: codexReader, lines: [JSON.stringify({ type: 'turn_context', payload: { model: 'gpt-5' } }), x(100, 10), x(150, 30), x(400, 31)] },
      { make: geminiReader, lines: [g('g1', 10), g('g1', 12), ...Array.from({ length: 100 }, (_, i) => g(`h${i}`, i)), g('g2', 5)] },
    ];
    for (const { make, lines } of cases) {
      const whole = make();
      whole.feed(lines);
      for (const cut of [1, 2, lines.length - 1]) {
        const first = make();
        first.feed(lines.slice(0, cut));
        const second = make(JSON.parse(JSON.stringify(first.save())));
        second.feed(lines.slice(cut));
        expect([...second.byDay()].map(([d, m]) => [d, Object.fromEntries(m)])).toEqual([...whole.byDay()].map(([d, m]) => [d, Object.fromEntries(m)]));
      }
    }
    // Each message once: Claude Code's 'a' met again after 100 others, Gemini CLI's g1 written twice.
    const claude = claudeReader();
    claude.feed(cases[0]!.lines);
    expect(claude.tokens().get('claude-sonnet-4-5')!.input).toBe(1 + 2 + 4950 + 3);
    const gemini = geminiReader();
    gemini.feed(cases[2]!.lines);
    expect(gemini.tokens().get('gemini-2.5-pro')!.input).toBe(12 + 4950 + 5);
    // Counts it cannot use: nothing counted, nothing thrown.
    expect(claudeReader({ settled: 'x', open: [[1]] }).tokens().size).toBe(0);
  });
});
