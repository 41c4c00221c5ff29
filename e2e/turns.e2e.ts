/**
 * Changes by turn with the real Claude Code (pinned), against the scripted model server,
 * in a real repository (the pane's folder), in the real window: three turns, each a Bash
 * tool call editing a.txt; the agent channel's hook checkpoints each prompt and each
 * Stop; the Changes card's This turn shows only the third, All all three, the timeline
 * each turn; hunks marked Reviewed; a hunk reverted from the card, which Claude Code is
 * told of in one line (its next request carries it); turn 1 restored from the timeline,
 * which Claude Code is told of too. The person's index, HEAD and stash
 * are as they were. Screenshots of the timeline and of a card with reviewed hunks,
 * light and dark, go to e2e/artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitSync, gitTestEnv, makeRepo } from '../main/worktrees/testing.ts';
import { repoLooks } from '../main/turns/testing.ts';
import { card, claudeRig, headerStatus, newAgentPane, openWindow, prompt, reportFailures, shot, type AgentRig } from './agent-cli.ts';

let rig: AgentRig;
let paneId: string;
let folder: string;
let gitEnv: NodeJS.ProcessEnv;
let repo: string;

beforeAll(async () => {
  rig = await claudeRig({
    // Bash runs without asking: each turn's edit is a sed.
    allow: ['Bash'],
    setup: (home, cwd) => {
      gitEnv = gitTestEnv(process.env, home);
      repo = makeRepo(cwd, gitEnv);
    },
  });
  ({ paneId, folder } = await newAgentPane(rig, 'claude'));
  await rig.win.waitForText(paneId, /for shortcuts|❯/, 90_000);
}, 180_000);

reportFailures(() => ({ rig, paneId, folder }));

afterAll(async () => {
  await rig?.close();
});

const looks = () => repoLooks(repo, gitEnv);

/** One turn of Claude Code: the prompt, a Bash tool call editing a.txt, a reply; waits for the header to say done. */
async function turn(nth: number, text: string, sed: string): Promise<void> {
  const { win, model } = rig;
  const n = model.main().length;
  model.script({ tool: 'Bash', input: { command: `sed -i '${sed}' a.txt`, description: text } }, { text: `Did it: ${text}.` });
  await prompt(win, paneId, text);
  await model.mainRequest(n + 1, 90_000, `the request after the tool ran (${text})`);
  const ends = () => (fs.existsSync(path.join(folder, 'turns.jsonl')) ? fs.readFileSync(path.join(folder, 'turns.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"kind":"end"')).length : 0);
  await win.waitFor(() => ends() >= nth, `the end of turn ${nth} recorded`, 60_000);
  await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
}

const hunks = (c: Locator) => c.locator('.tdb-hunk');

describe('changes by turn, with Claude Code', () => {
  it('three turns: This turn shows the third, All all three; hunks reviewed; one reverted and a turn restored, Claude Code told of each', async () => {
    const { win, model } = rig;
    const before = looks();
    await turn(1, 'shout line two', 's/^line 2$/LINE TWO/');
    await turn(2, 'shout line ten', 's/^line 10$/LINE TEN/');
    await turn(3, 'shout line twenty', 's/^line 20$/LINE TWENTY/');
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toContain('LINE TWENTY');

    const changes = await card(win, paneId, { id: 'worktree-changes', shelf: 'Review' }, 'the Changes card', 60_000);
    const c = changes.locator;
    const timeline = c.locator('.tdb-turn');
    await win.waitFor(async () => (await timeline.count()) === 3 && /running/.test(await timeline.nth(2).innerText()) === false, 'three ended turns on the timeline', 30_000);
    expect(await c.getByRole('button', { name: 'This turn' }).getAttribute('aria-pressed')).toBe('true');
    await win.waitFor(async () => (await hunks(c).count()) === 1, 'This turn: one hunk');
    expect(await hunks(c).first().innerText()).toContain('LINE TWENTY');
    expect(await hunks(c).first().innerText()).not.toContain('LINE TEN');
    expect(await timeline.nth(0).innerText()).toContain('shout line two');
    expect(await timeline.nth(2).innerText()).toMatch(/shout line twenty[\s\S]*1 file[\s\S]*\+1[\s\S]*−1/);
    // The counts once (the summary says them), and the view switch on one row in this narrow bench.
    expect(await c.innerText()).not.toMatch(/\d+ files? · \+\d/);
    const rows = await c.locator('.tdb-turns-views .tdb-btn').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(new Set(rows).size, `the view buttons' tops: ${rows.join(', ')}`).toBe(1);
    await shot(c.locator('.tdb-turns'), 'turns-timeline-dark');
    // Any turn of the timeline, shown on its own.
    await c.getByRole('button', { name: 'Show turn 2' }).click();
    await win.waitFor(async () => (await hunks(c).count()) === 1 && /LINE TEN/.test(await hunks(c).first().innerText()), 'turn 2 shown');
    expect(await c.getByRole('button', { name: 'Show turn 2' }).getAttribute('aria-pressed')).toBe('true');

    await c.getByRole('button', { name: 'All', exact: true }).click();
    await win.waitFor(async () => (await hunks(c).count()) === 3, 'All: three hunks');
    await c.getByRole('button', { name: 'Reviewed: hunk 1 of a.txt' }).click();
    await win.waitFor(async () => (await c.locator('.tdb-hunk.is-reviewed').count()) === 1, 'hunk 1 reviewed');
    await c.getByRole('button', { name: 'Reviewed: hunk 2 of a.txt' }).click();
    await win.waitFor(async () => (await c.locator('.tdb-hunk.is-reviewed').count()) === 2, 'hunk 2 reviewed');
    await shot(c, 'turns-reviewed-dark');

    const light = await openWindow(rig.browser, rig.serve, { theme: 'light', viewport: { width: 1500, height: 950 } });
    try {
      const l = (await card(light, paneId, { id: 'worktree-changes', shelf: 'Review' }, 'the card in a light window')).locator;
      await light.waitFor(async () => (await l.locator('.tdb-hunk.is-reviewed').count()) === 2, 'the light card settled');
      await shot(l, 'turns-reviewed-light');
      await shot(l.locator('.tdb-turns'), 'turns-timeline-light');
    } finally {
      await light.close();
    }

    await c.getByRole('button', { name: 'Since I last reviewed' }).click();
    await win.waitFor(async () => (await hunks(c).count()) === 1 && /LINE TWENTY/.test(await hunks(c).first().innerText()), 'only the unreviewed hunk');

    // Revert it from the card: the file loses that hunk only, and Claude Code is told.
    const n = model.main().length;
    model.script({ text: 'Understood, line 20 is back as it was.' });
    win.page.once('dialog', (d) => void d.accept());
    await c.getByRole('button', { name: 'Revert hunk 1 of a.txt' }).click();
    await win.waitFor(() => fs.readFileSync(path.join(repo, 'a.txt'), 'utf8').includes('\nline 20\n'), 'the hunk reverted in the file');
    const text = fs.readFileSync(path.join(repo, 'a.txt'), 'utf8');
    expect(text).toContain('\nLINE TWO\n');
    expect(text).toContain('\nLINE TEN\n');
    const told = await model.mainRequest(n, 90_000, 'the request carrying the revert line');
    expect(JSON.stringify(told.body.messages)).toContain('revert_part on surface worktree-changes · a.txt#hunk-1 — the person reverted this hunk from the changes in the working tree');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);

    // Restore turn 1 from the timeline (the revert's line was turn 4, so all turns are asked for first):
    // a.txt, which turn 1 touched, goes back to how it was before it; Claude Code is told.
    const original = gitSync(['show', 'HEAD:a.txt'], repo, gitEnv);
    await c.getByRole('button', { name: /^Show all \d turns$/ }).click();
    const m = model.main().length;
    model.script({ text: 'Understood, a.txt is as it was.' });
    win.page.once('dialog', (d) => void d.accept());
    await c.getByRole('button', { name: 'Restore turn 1' }).click();
    await win.waitFor(() => fs.readFileSync(path.join(repo, 'a.txt'), 'utf8') === original, 'a.txt as before turn 1');
    const restored = await model.mainRequest(m, 90_000, 'the request carrying the restore line');
    expect(JSON.stringify(restored.body.messages)).toContain('restore_turn on surface worktree-changes · turn 1 — the person restored this file to how it was before turn 1: a.txt');
    await win.waitFor(async () => /↺ Restore of turn 1/.test(await c.locator('.tdb-timeline').innerText()), 'the restore on the timeline');
    await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);

    // Through it all, the person's index, HEAD, stash and branches are untouched.
    expect(looks()).toEqual(before);
    expect(gitSync(['status', '--porcelain'], repo, gitEnv)).toBe('');
    expect(win.errors).toEqual([]);
  });
});
