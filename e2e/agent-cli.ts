/**
 * Shared setup for the real agent CLIs' end-to-end tests (e2e/agent-<name>.e2e.ts): the
 * scripted model server, a serve whose panes find the pinned CLIs (node_modules/.bin) on
 * PATH and the agent pointed at the model server with a fake key, and the agent channel
 * installed into the test's own HOME by the real installer (`terminal-delight hooks`).
 * The agents never reach the internet: every base URL is 127.0.0.1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { ModelServer } from './model-server.ts';
import { ARTIFACTS, launchBrowser, openWindow, paneFolder, ROOT, startServe, type Serve, type TdPage } from './harness.ts';

export const BIN = path.join(ROOT, 'node_modules', '.bin');

export interface AgentRig {
  model: ModelServer;
  serve: Serve;
  browser: Browser;
  win: TdPage;
  close(): Promise<void>;
}

/**
 * Starts the model server, then serve with `env(modelUrl)` added to every pane's
 * environment, runs `setup(home, cwd)` (the agent's own config files) and the installer
 * for `agent`, and opens a window.
 */
export async function agentRig(agent: string, env: (modelUrl: string) => Record<string, string>, setup: (home: string, cwd: string) => void): Promise<AgentRig> {
  const model = await new ModelServer().start();
  const serve = await startServe({ env: { PATH: `${BIN}:${process.env.PATH}`, ...env(model.url) } });
  setup(serve.home, serve.cwd);
  const r = spawnSync(path.join(ROOT, 'bin', 'terminal-delight'), ['hooks', '--agent', agent, ...(agent === 'claude' ? ['--no-mcp'] : [])], {
    env: { ...process.env, HOME: serve.home, TD_NODE: process.execPath }, encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`terminal-delight hooks --agent ${agent} failed: ${r.stderr}`);
  const browser = await launchBrowser();
  const win = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1500, height: 950 } });
  return {
    model, serve, browser, win,
    async close() {
      await win.close().catch(() => undefined);
      await browser.close();
      await serve.close();
      await model.close();
    },
  };
}

/** Starts the agent with "+ Agent" (settings.agentCommand, `claude` by default) in a new pane with its bench open; returns the pane id and folder. */
export async function newAgentPane(rig: AgentRig): Promise<{ paneId: string; folder: string }> {
  const { win } = rig;
  const before = new Set(await win.paneIds());
  await win.page.getByRole('button', { name: '+ Agent' }).click();
  let paneId = '';
  await win.waitFor(async () => {
    paneId = (await win.paneIds()).find((id) => !before.has(id)) ?? '';
    return paneId !== '';
  }, 'the agent pane');
  const header = win.header(paneId);
  if ((await win.page.locator(`[data-pane-id="${paneId}"] .td-bench`).count()) === 0) await header.getByRole('button', { name: 'Open bench' }).click();
  const folder = await paneFolder(win, rig.serve, paneId);
  await win.waitFor(() => {
    try {
      return JSON.parse(fs.readFileSync(path.join(folder, 'bench.json'), 'utf8')).open === true;
    } catch {
      return false;
    }
  }, 'bench.json to say open');
  return { paneId, folder };
}

export function bench(win: TdPage, paneId: string): Locator {
  return win.page.locator(`[data-pane-id="${paneId}"] .td-bench`);
}

/** A card on the pane's bench by id, or the newest whose id starts with `prefix`; brings its shelf on screen. */
export async function card(win: TdPage, paneId: string, match: { id?: string; prefix?: string; not?: Set<string>; shelf?: string }, what: string, timeoutMs = 60_000): Promise<{ id: string; locator: Locator }> {
  let id = '';
  await win.waitFor(async () => {
    const ids = await win.page.evaluate((pid) => [...document.querySelectorAll(`[data-pane-id="${pid}"] .td-bench [data-surface-id]`)].map((e) => e.getAttribute('data-surface-id') ?? ''), paneId);
    id = ids.find((x) => (match.id ? x === match.id : x.startsWith(match.prefix ?? '')) && !match.not?.has(x)) ?? '';
    if (id) return true;
    // the card may be on a shelf that is not showing
    const tab = bench(win, paneId).locator(`[data-shelf="${match.shelf ?? 'Decide'}"]`);
    if ((await tab.count()) > 0) await tab.click().catch(() => undefined);
    return false;
  }, what, timeoutMs);
  return { id, locator: bench(win, paneId).locator(`[data-surface-id="${id}"]`) };
}

export async function shot(locator: Locator, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await locator.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

/** The badge in the pane's header: working, needs you, done, idle. */
export async function headerStatus(win: TdPage, paneId: string): Promise<string> {
  const badge = win.header(paneId).getByTestId('agent-status');
  return (await badge.count()) > 0 ? (await badge.innerText()).trim() : '';
}

/** Types a prompt into the agent's terminal as a person does, then Enter. */
export async function prompt(win: TdPage, paneId: string, text: string): Promise<void> {
  await win.focusTerminal(paneId);
  await win.page.keyboard.type(text);
  await new Promise((r) => setTimeout(r, 300));
  await win.page.keyboard.press('Enter');
}

export { openWindow };
