/**
 * Usage of a Gemini CLI session, for real (issue 36): the real Gemini CLI in a pane against
 * the scripted model server (its answers' usageMetadata say the tokens, cached ones within
 * the prompt's); the chat record Gemini CLI keeps reaches the pane header, priced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiPrompt, geminiReady, geminiRig, newAgentPane, reportFailures, type AgentRig } from './agent-cli.ts';
import { loadPrices, priceOf } from '../main/usage/prices.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;

beforeAll(async () => {
  rig = await geminiRig();
  ({ paneId, folder } = await newAgentPane(rig, 'gemini'));
  await geminiReady(rig, paneId, folder);
}, 240_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

describe('the usage of a Gemini CLI session', () => {
  it('is the tokens the model said it used × the price file', async () => {
    const { win, model } = rig;
    const a = { input: 2000, output: 321, cacheRead: 7000 };
    const n = model.main().length;
    model.script({ text: 'Gemini answer one.', usage: a });
    await geminiPrompt(win, paneId, 'count');
    await model.mainRequest(n, 90_000);
    await win.waitForText(paneId, /Gemini answer one\./, 60_000);
    await win.waitFor(async () => (await win.pane(paneId))?.usage?.output === a.output, 'the pane\'s usage', 30_000);
    const usage = (await win.pane(paneId))!.usage!;
    expect(usage).toMatchObject({ input: a.input, output: a.output, cacheRead: a.cacheRead, cacheWrite: 0 });
    const p = priceOf(loadPrices(), usage.model!);
    expect(p, `a price for ${usage.model}`).toBeDefined();
    expect(usage.cost).toBeCloseTo((a.input * p!.input + a.output * p!.output + a.cacheRead * p!.cacheRead) / 1e6, 10);
  }, 240_000);
});
