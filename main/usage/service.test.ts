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

describe('usage of an agent pane', () => {
  it('is the scripted usage × the price file, kept up as the transcript grows; an unknown model shows tokens only', async () => {
    // A program named claude (it only waits), so the pane knows its agent.
    const fake = fakeAgent(state.dir, 'claude');
    const pane = app.panes.create({ command: [fake] });
    const transcript = path.join(state.dir, 'session.jsonl');
    fs.writeFileSync(transcript, `${assistant('m1', 'claude-sonnet-4-5-20250929', { input_tokens: 1200, output_tokens: 800, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 4_000 })}\n`);
    const folder = app.panes.folder(pane.id);
    fs.mkdirSync(folder, { recursive: true });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', id: 'e1', at: new Date().toISOString(), agent: 'claude', type: 'session', transcript_path: transcript, cwd: state.dir })}\n`);

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
