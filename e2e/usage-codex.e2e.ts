/**
 * Usage of a Codex session, for real (issue 36): the real Codex in a pane against the
 * scripted model server (its Responses answers say the tokens they used, cached input
 * apart); its rollout's token counts reach the pane header. The scripted model ("scripted")
 * has no price in the price file: tokens only, and the tooltip says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexRig, newAgentPane, prompt, reportFailures, trustCodexHooks, type AgentRig } from './agent-cli.ts';
import { loadPrices } from '../main/usage/prices.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;

beforeAll(async () => {
  rig = await codexRig();
  ({ paneId, folder } = await newAgentPane(rig, 'codex'));
  await trustCodexHooks(rig, paneId);
}, 240_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

describe('the usage of a Codex session', () => {
  it('is the tokens the model said it used, unpriced for a model the price file does not list', async () => {
    const { win, model } = rig;
    const a = { input: 3000, output: 420, cacheRead: 11_000 };
    const n = model.main().length;
    model.script({ text: 'Codex answer one.', usage: a });
    await prompt(win, paneId, 'count my tokens');
    await model.mainRequest(n, 90_000);
    await win.waitForText(paneId, /Codex answer one\./, 60_000);
    await win.waitFor(async () => (await win.pane(paneId))?.usage?.output === a.output, 'the pane\'s usage', 30_000);
    expect((await win.pane(paneId))!.usage).toEqual({
      model: 'scripted', input: a.input, output: a.output, cacheRead: a.cacheRead, cacheWrite: 0,
      currency: 'USD', pricesDate: loadPrices().date, unpriced: ['scripted'],
    });
    const badge = win.header(paneId).getByTestId('usage');
    expect(await badge.innerText()).toBe('14k tok');
    expect(await badge.getAttribute('title')).toContain(`No cost: the price file of ${loadPrices().date} has no price for scripted; tokens only.`);
  }, 240_000);
});
