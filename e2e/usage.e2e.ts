/**
 * Usage and cost, for real (issue 36): the real Claude Code in a pane against the scripted
 * model server, whose answers say what tokens they used; the pane header shows the
 * session's tokens and its cost, which is the scripted usage × the price file.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeRig, newAgentPane, prompt, reportFailures, type AgentRig } from './agent-cli.ts';
import { loadPrices } from '../main/usage/prices.ts';
import { money } from '../common/usage.ts';
import { axeViolations, openWindow } from './harness.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;
/** The session's scripted usage and its cost at the price file, once both answers are in. */
let expected: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number } | undefined;

beforeAll(async () => {
  rig = await claudeRig();
  ({ paneId, folder } = await newAgentPane(rig, 'claude'));
  await rig.win.waitForText(paneId, /for shortcuts|❯/, 90_000);
}, 180_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

describe('the cost of a Claude Code session', () => {
  it('is what the model said it used × the price file, in the pane header', async () => {
    const { win, model } = rig;
    const a = { input: 1234, output: 567, cacheRead: 8901, cacheWrite: 2345 };
    const b = { input: 50, output: 1000, cacheRead: 12_000, cacheWrite: 0 };
    const n = model.main().length;
    model.script({ text: 'First answer.', usage: a });
    await prompt(win, paneId, 'first');
    await model.mainRequest(n, 90_000);
    await win.waitForText(paneId, /First answer\./, 60_000);
    model.script({ text: 'Second answer.', usage: b });
    await prompt(win, paneId, 'second');
    await model.mainRequest(n + 1, 90_000);
    await win.waitForText(paneId, /Second answer\./, 60_000);

    const p = loadPrices().models['claude-sonnet-4-5']!;
    const cost = ((a.input + b.input) * p.input + (a.output + b.output) * p.output + (a.cacheRead + b.cacheRead) * p.cacheRead + (a.cacheWrite + b.cacheWrite) * p.cacheWrite) / 1e6;
    await win.waitFor(async () => (await win.pane(paneId))?.usage?.output === a.output + b.output, 'the pane\'s usage of both answers', 30_000);
    const usage = (await win.pane(paneId))!.usage!;
    expect(usage).toMatchObject({ model: 'claude-sonnet-4-5', input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, currency: 'USD' });
    expect(usage.cost).toBeCloseTo(cost, 10);
    expected = { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, cost };
    const badge = win.header(paneId).getByTestId('usage');
    expect(await badge.innerText()).toBe(`${Math.round((a.input + b.input + a.output + b.output + a.cacheRead + b.cacheRead + a.cacheWrite + b.cacheWrite) / 1000)}k tok · $${cost.toFixed(3)}`);
    expect(await badge.getAttribute('title')).toContain(`Cost $${cost.toFixed(3)} at the prices of ${loadPrices().date}.`);
    await win.screenshot('usage-header-dark');
  }, 240_000);

  it('its prompts and replies are found by terminal-delight search, with the agent and the pane', async () => {
    const search = (...args: string[]) => {
      const r = spawnSync(path.join(import.meta.dirname, '..', 'bin', 'terminal-delight'), ['search', ...args, '--json'], {
        env: { ...process.env, XDG_STATE_HOME: rig.serve.stateDir, TD_SOCKET: path.join(rig.serve.stateDir, 'app.sock'), TD_NODE: process.execPath }, encoding: 'utf8',
      });
      return r.stdout.trim() ? (JSON.parse(r.stdout) as { hits: Array<{ kind: string; agent?: string; paneId: string; text: string }> }).hits : [];
    };
    await rig.win.waitFor(() => search('Second answer', '--kind', 'reply').length > 0, 'the reply in the index', 30_000);
    expect(search('Second answer', '--kind', 'reply')[0]).toMatchObject({ agent: 'claude', paneId, text: 'Second answer.' });
    expect(search('second', '--kind', 'prompt', '--agent', 'claude')[0]).toMatchObject({ paneId, text: 'second' });
  }, 60_000);

  it('Enter on a reply in the Search everything palette opens the session\'s transcript in the bench\'s viewer at that reply', async () => {
    const { win } = rig;
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Control+Shift+F');
    const input = win.page.getByRole('searchbox', { name: 'Search everything' });
    await input.waitFor();
    await win.page.getByLabel('Kind').selectOption('reply');
    await input.fill('answer');
    const hits = win.page.locator('.td-search-hit');
    await win.waitFor(async () => (await hits.count()) === 2, 'both replies');
    expect(await hits.first().innerText()).toContain('Second answer.');
    expect(await win.page.locator('.td-search-agent').first().innerText()).toBe('claude');
    await win.screenshot('search-palette-replies-dark');
    await hits.nth(1).click();
    const viewer = win.page.getByRole('dialog', { name: 'Document: Claude Code\'s transcript' });
    await viewer.waitFor();
    // The session in order, the hit (the first reply) marked and in view.
    const entries = viewer.locator('.tdv-entry');
    expect((await entries.allInnerTexts()).map((t) => t.split('\n')[0]! + ' ' + t.split('\n').at(-1)!)).toEqual(expect.arrayContaining([expect.stringMatching(/^PROMPT .*first$/)]));
    const kinds = await entries.evaluateAll((els) => els.map((el) => `${el.getAttribute('data-kind')}:${el.querySelector('pre, .td-md')?.textContent?.trim()}`));
    expect(kinds.filter((k) => !k.startsWith('tool:'))).toEqual(['prompt:first', 'reply:First answer.', 'prompt:second', 'reply:Second answer.']);
    const current = viewer.locator('.tdv-entry[aria-current="true"]');
    expect(await current.innerText()).toContain('First answer.');
    expect(await current.isVisible()).toBe(true);
    await win.screenshot('search-transcript-dark');
    expect(await axeViolations(win, 'transcript viewer, dark')).toEqual([]);
    await win.page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  }, 60_000);

  it('the Usage view shows the session by day in a chart and in a table, its figures the usage × the price file; light and dark; terminal-delight usage agrees', async () => {
    if (!expected) throw new Error('the first test did not finish');
    const e = expected;
    const check = async (w: typeof rig.win, theme: string): Promise<void> => {
      const view = w.page.getByRole('dialog', { name: 'Usage' });
      await view.waitFor();
      const row = view.locator('tbody tr', { hasText: paneId });
      await w.waitFor(async () => (await row.count()) === 1 && (await row.locator('td.num').nth(1).innerText()) === e.output.toLocaleString('en'), 'the session\'s row', 30_000);
      expect(await row.locator('td.num').allInnerTexts()).toEqual([e.input, e.output, e.cacheRead, e.cacheWrite].map((n) => n.toLocaleString('en')).concat(money(e.cost, 'USD')));
      expect(Number(await row.locator('.td-usage-cost').getAttribute('data-cost'))).toBeCloseTo(e.cost, 10);
      expect(await row.locator('td').first().innerText()).toBe('claude');
      // The chart: one bar (today), Claude's stack.
      const label = await view.locator('canvas').getAttribute('aria-label');
      expect(label).toMatch(new RegExp(`^Cost by day and agent: \\d{4}-\\d{2}-\\d{2} claude \\$${money(e.cost, 'USD').slice(1).replace('.', '\\.')}$`));
      // By worktree: the pane has none, said so.
      await view.getByLabel('Table by').selectOption('worktree');
      await view.locator('tbody tr', { hasText: 'no worktree' }).waitFor();
      await view.getByLabel('Table by').selectOption('session');
      // The pane named by its title without the spinner glyph Claude Code puts before it ("✳ Claude Code").
      const session = view.locator('tbody tr', { hasText: paneId }).locator('th');
      expect(await session.innerText()).toMatch(new RegExp(`^claude \\S+ in [^\\u2800-\\u28ff✳✶✻✽✢·\\s]\\S*.* \\(${paneId}\\)$`, 'u'));
      await w.screenshot(`usage-view-${theme}`);
      expect(await axeViolations(w, `usage view, ${theme}`)).toEqual([]);
    };

    // Dark: from the title bar.
    await rig.win.page.getByTestId('open-usage').click();
    await check(rig.win, 'dark');
    await rig.win.page.getByRole('dialog', { name: 'Usage' }).getByRole('button', { name: 'Close' }).click();
    await rig.win.page.getByRole('dialog', { name: 'Usage' }).waitFor({ state: 'detached' });

    // Light: another window, by the shortcut.
    const light = await openWindow(rig.browser, rig.serve, { theme: 'light', viewport: { width: 1200, height: 760 } });
    try {
      await light.page.locator('.titlebar').waitFor();
      await light.page.keyboard.press('Control+Shift+U');
      await check(light, 'light');
    } finally {
      await light.close();
    }

    // The command line sums the same figures.
    const r = spawnSync(path.join(import.meta.dirname, '..', 'bin', 'terminal-delight'), ['usage', '--by', 'pane', '--json'], {
      env: { ...process.env, XDG_STATE_HOME: rig.serve.stateDir, TD_SOCKET: path.join(rig.serve.stateDir, 'app.sock'), TD_NODE: process.execPath }, encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const groups = (JSON.parse(r.stdout) as { groups: Array<{ key: string; input: number; output: number; cacheRead: number; cacheWrite: number; cost: number }> }).groups;
    const mine = groups.find((g) => g.key === paneId)!;
    expect(mine).toMatchObject({ input: e.input, output: e.output, cacheRead: e.cacheRead, cacheWrite: e.cacheWrite });
    expect(mine.cost).toBeCloseTo(e.cost, 10);
  }, 120_000);
});
