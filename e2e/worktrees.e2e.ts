/**
 * An agent in a worktree, end to end: the real serve shell, a real repository in a
 * temp folder (the first pane's folder), a stand-in `claude` on PATH that edits files
 * when told (an agent-like program reading its terminal), the built renderer in
 * Chromium. New agent in a worktree from the title bar's ⎇, the branch in the pane
 * header, the Changes card following the agent's edits, a per-hunk reject typed back
 * with its comment, commit and merge from the card landing on main, the worktree
 * listed once its pane is closed and removed from the list. Screenshots of the dialog
 * and of the Changes card, light and dark, go to e2e/artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitSync, gitTestEnv, makeRepo, AGENT_SOURCE } from '../main/worktrees/testing.ts';
import { ARTIFACTS, launchBrowser, openWindow, startServe, tempDir, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let bin: string;
let gitEnv: NodeJS.ProcessEnv;
let agentLog: string;
let first: string;

async function shot(name: string, locator: Locator): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await locator.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

beforeAll(async () => {
  bin = tempDir('wt-bin');
  agentLog = path.join(bin, 'agent.log');
  fs.writeFileSync(path.join(bin, 'agent.mjs'), AGENT_SOURCE);
  // A stand-in for Claude Code: "+ Agent" runs settings.agentCommand, `claude` by default.
  fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(bin, 'agent.mjs')}"\n`, { mode: 0o755 });
  gitEnv = gitTestEnv(process.env, bin);
  const pick = (k: string) => String(gitEnv[k]);
  serve = await startServe({
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      AGENT_LOG: agentLog,
      ...Object.fromEntries(['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL'].map((k) => [k, pick(k)])),
    },
  });
  // The first pane's folder is the repository.
  makeRepo(serve.cwd, gitEnv, { '.env': 'TOKEN=abc\n', '.worktreeinclude': '.env\n' });
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1600, height: 1000 } });
  [first] = (await win.paneIds()) as [string];
  await win.waitForPrompt(first);
}, 120_000);

afterAll(async () => {
  await win?.close();
  await browser?.close();
  await serve?.close();
  if (serve) fs.rmSync(`${serve.cwd}.worktrees`, { recursive: true, force: true });
  if (bin) fs.rmSync(bin, { recursive: true, force: true });
});

const bench = (w: TdPage, paneId: string): Locator => w.page.locator(`[data-bench-pane="${paneId}"]`);
const changes = (w: TdPage, paneId: string): Locator => bench(w, paneId).locator('[data-surface-id="worktree-changes"]');

describe('an agent in a worktree', () => {
  it('starts from the dialog, shows its branch, its Changes card follows its edits, and a hunk\'s reject reaches it', async () => {
    await win.page.getByTestId('new-agent-worktree').click();
    const dialog = win.page.getByRole('dialog', { name: 'New agent in a worktree' });
    await dialog.waitFor();
    // The repository is the focused pane's; its current branch is the base.
    await win.waitFor(async () => (await dialog.locator('select[name="base"]').inputValue()) === 'main', 'the base to be main');
    expect(await dialog.locator('input[name="repo"]').inputValue()).toBe(serve.cwd);
    await dialog.locator('textarea[name="prompt"]').fill('Shout line two');
    await dialog.locator('input[name="name"]').fill('fix-login');
    await win.waitFor(async () => (await dialog.locator('dd').first().innerText()).endsWith('/fix-login'), 'the folder to show');
    await shot('worktree-dialog-dark', dialog);
    await dialog.getByRole('button', { name: 'Start agent' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'the agent pane');
    const agent = (await win.paneIds()).find((id) => id !== first)!;
    await win.waitFor(async () => (await dialog.count()) === 0, 'the dialog to close');
    const where = `${serve.cwd}.worktrees/fix-login`;
    await win.waitForText(agent, `agent ready in ${where}`);
    expect(fs.readFileSync(path.join(where, '.env'), 'utf8')).toBe('TOKEN=abc\n');
    const badge = win.header(agent).getByTestId('worktree-badge');
    await win.waitFor(async () => (await badge.count()) === 1 && (await badge.innerText()).includes('fix-login'), 'the branch in the header');

    // The agent edits files; the Changes card on the Review shelf follows.
    await win.typeLine(agent, 'do sed -i "s/^line 2$/LINE TWO/; s/^line 25$/LINE 25/" a.txt && printf "hello\\n" > notes.md');
    await win.waitForText(agent, 'did it');
    await win.header(agent).getByRole('button', { name: 'Open bench' }).click();
    await bench(win, agent).locator('[data-shelf="Review"]').click();
    const card = changes(win, agent);
    await win.waitFor(async () => (await card.locator('.tdb-hunk').count()) === 3, 'three hunks on the Changes card', 30_000);
    await win.waitFor(async () => (await card.getByRole('button', { name: 'Commit…' }).isEnabled()), 'the Finish row to know what is uncommitted');
    expect(await card.locator('.tdb-path').allInnerTexts()).toEqual(['a.txt', 'notes.md']);
    expect(await card.locator('.tdb-finish').innerText()).toContain('⎇ fix-login');

    // A per-hunk reject with a comment is typed back to the agent as any change's is.
    await card.getByRole('textbox', { name: /Comment on/ }).fill('keep it lower case');
    await card.getByRole('button', { name: 'Reject hunk 1 of a.txt' }).click();
    await win.waitFor(() => fs.existsSync(agentLog) && fs.readFileSync(agentLog, 'utf8').includes('reject_part'), 'the line to reach the agent');
    const tag = (await win.pane(agent))!.tag;
    expect(fs.readFileSync(agentLog, 'utf8')).toBe(`[workbench:${tag}] reject_part on surface worktree-changes · a.txt#hunk-1 — keep it lower case\n`);
    await win.waitFor(async () => (await card.locator('.tdb-hunk.is-rejected').count()) === 1, 'the hunk marked rejected');
    // However narrow the bench, the hunks' buttons stay inside the card, and the Finish row's inside its box.
    const outside = await card.evaluate((el) => {
      const out = (box: Element, sel: string) => [...box.querySelectorAll(sel)].filter((b) => b.getBoundingClientRect().right > box.getBoundingClientRect().right + 0.5).map((b) => `${b.textContent} ${b.getBoundingClientRect().right} > ${box.getBoundingClientRect().right}`);
      return [...out(el, '.tdb-hunk-head button'), ...out(el.querySelector('.tdb-finish')!, 'button, select')];
    });
    expect(outside).toEqual([]);
    await shot('worktree-changes-dark', bench(win, agent));

    // The same card in a light window.
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1600, height: 1000 } });
    try {
      const lightCard = changes(light, agent);
      await bench(light, agent).locator('[data-shelf="Review"]').click();
      await light.waitFor(async () => (await lightCard.locator('.tdb-hunk').count()) === 3, 'the card in the light window', 30_000);
      await light.waitFor(async () => (await lightCard.locator('.tdb-hunk.is-rejected').count()) === 1 && (await lightCard.getByRole('button', { name: 'Commit…' }).isEnabled()), 'the light card settled');
      await shot('worktree-changes-light', bench(light, agent));
    } finally {
      await light.close();
    }

    // Commit (the message field is prefilled) and merge into main, from the card.
    await card.getByRole('button', { name: 'Commit…' }).click();
    const message = card.getByRole('textbox', { name: 'Commit message for fix-login' });
    expect(await message.inputValue()).toBe('Work on fix-login');
    await message.fill('Shout two lines');
    await card.getByRole('button', { name: 'Commit (Ctrl+Enter)' }).click();
    await win.waitFor(async () => /Committed [0-9a-f]{8} on fix-login\./.test(await card.locator('.tdb-done').innerText().catch(() => '')), 'the commit to be done');
    await win.waitFor(async () => (await badge.innerText()).includes('↑1'), 'one commit ahead in the header');
    await card.getByRole('button', { name: 'Merge into main' }).click();
    await win.waitFor(async () => /Merged into main/.test(await card.locator('.tdb-done').innerText().catch(() => '')), 'the merge to be done');
    expect(gitSync(['log', '-1', '--format=%s', 'main'], serve.cwd, gitEnv).trim()).toBe('Shout two lines');
    expect(fs.readFileSync(path.join(serve.cwd, 'a.txt'), 'utf8')).toContain('LINE TWO');
  });

  it('lists the worktree once its pane is closed, and removes it from the list', async () => {
    const agent = (await win.paneIds()).find((id) => id !== first)!;
    await win.header(agent).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 1, 'the agent pane to close');
    const counts = win.page.getByTestId('agents-counts');
    await win.waitFor(async () => (await counts.count()) === 1 && (await counts.innerText()).includes('1 left'), 'the title bar to count the worktree left behind');
    await counts.click();
    const row = win.page.getByTestId('agents-worktrees').locator('[data-worktree]');
    await win.waitFor(async () => (await row.count()) === 1, 'the worktree in the list');
    expect(await row.innerText()).toContain('fix-login');
    await shot('worktree-list-dark', win.page.getByTestId('agents-list'));
    await row.getByRole('button', { name: 'Remove the worktree fix-login' }).click();
    await win.waitFor(async () => (await counts.count()) === 0, 'the worktree gone from the title bar');
    expect(fs.existsSync(`${serve.cwd}.worktrees/fix-login`)).toBe(false);
    expect(gitSync(['branch', '--list', 'fix-login'], serve.cwd, gitEnv)).toBe('');
    expect(win.errors).toEqual([]);
  });
});
