/**
 * Usage of an OpenCode session, for real (issue 36): the real OpenCode in a pane against the
 * scripted model server (Chat Completions usage: prompt tokens with the cached ones among
 * them); OpenCode keeps the tokens in its database (opencode.db), which the service reads:
 * the pane's usage is what the model said, in tokens only (model "scripted" has no price).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  it('is the tokens the model said it used, read from OpenCode\'s database; tokens only for a model with no price', async () => {
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
  }, 240_000);
});
