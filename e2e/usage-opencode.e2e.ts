/**
 * Usage of an OpenCode session, for real (issue 36): the real OpenCode in a pane against the
 * scripted model server (Chat Completions usage: prompt tokens with the cached ones among
 * them); OpenCode keeps the tokens in its database (opencode.db), which the service reads:
 * the pane's usage is what the model said, in tokens only (model "scripted" has no price).
 * A second answer is counted on top: the service reads on only the rows written since, so
 * the test checks what that rests on, that OpenCode writes an answer's row again with a
 * `time_updated` as it streams.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlite } from '../main/search/index.ts';
import { messageTokens } from '../main/usage/opencode.ts';
import { newAgentPane, opencodeRig, prompt, reportFailures, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;

beforeAll(async () => {
  rig = await opencodeRig();
  ({ paneId, folder } = await newAgentPane(rig, 'opencode'));
  await rig.win.waitForText(paneId, /Ask anything/, 180_000);
}, 300_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

describe('the usage of an OpenCode session', () => {
  it('is the tokens the model said it used, read from OpenCode\'s database; tokens only for a model with no price; a second answer counted on top', async () => {
    const { win, model } = rig;
    const a = { input: 1500, output: 250, cacheRead: 4000 };
    const n = model.main().length;
    model.script({ text: 'OpenCode answer one.', usage: a });
    await prompt(win, paneId, 'count');
    await model.mainRequest(n, 120_000);
    await win.waitForText(paneId, /OpenCode answer one\./, 60_000);
    await win.waitFor(async () => (await win.pane(paneId))?.usage?.output === a.output, 'the pane\'s usage', 60_000);
    const usage = (await win.pane(paneId))!.usage!;
    expect(usage).toMatchObject({ model: 'scripted', input: a.input, output: a.output, cacheRead: a.cacheRead, cacheWrite: 0, unpriced: ['scripted'] });
    expect(usage.cost).toBeUndefined();
    expect(await win.header(paneId).getByTestId('usage').innerText()).toBe(`${Math.round((a.input + a.output + a.cacheRead) / 100) / 10}k tok`);

    // The answer's row was written again as it streamed (its tokens come at the end of the stream), its
    // time_updated the time of that write: never before its time_created (the same millisecond on a fast machine).
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(path.join(rig.serve.env.XDG_DATA_HOME!, 'opencode', 'opencode.db'), { readOnly: true });
    try {
      const rows = db.prepare('SELECT time_created, time_updated, data FROM message').all() as Array<{ time_created: number; time_updated: number; data: string }>;
      const answer = rows.find((r) => (JSON.parse(r.data) as { role?: string }).role === 'assistant');
      expect(answer).toBeDefined();
      expect(answer!.time_updated).toBeGreaterThanOrEqual(answer!.time_created);
      expect(messageTokens(answer!.data)?.tok).toEqual({ input: a.input, output: a.output, cacheRead: a.cacheRead, cacheWrite: 0 });
    } finally {
      db.close();
    }

    // A second answer: counted on top of the first.
    const b = { input: 2100, output: 40, cacheRead: 5000 };
    const m = model.main().length;
    model.script({ text: 'OpenCode answer two.', usage: b });
    await prompt(win, paneId, 'count again');
    await model.mainRequest(m, 120_000);
    await win.waitForText(paneId, /OpenCode answer two\./, 60_000);
    await win.waitFor(async () => (await win.pane(paneId))?.usage?.output === a.output + b.output, 'the pane\'s usage after the second answer', 60_000);
    expect((await win.pane(paneId))!.usage).toMatchObject({ input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: 0 });
  }, 240_000);
});
