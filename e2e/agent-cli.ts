/**
 * Shared setup for the real agent CLIs' end-to-end tests (e2e/agent-<name>.e2e.ts): the
 * scripted model server, a serve whose panes find the pinned CLIs (linked from
 * node_modules/.bin into a folder of their own, as a person's install) on PATH and the agent pointed at the model server with a fake key, and the agent channel
 * installed into the test's own HOME by the real installer (`terminal-delight hooks`).
 * The agents never reach the internet: every base URL is 127.0.0.1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { ModelServer } from './model-server.ts';
import { afterEach, expect } from 'vitest';
import { ARTIFACTS, launchBrowser, openWindow, paneFolder, ROOT, startServe, tempDir, waitForBenchFile, type Serve, type TdPage } from './harness.ts';

export const BIN = path.join(ROOT, 'node_modules', '.bin');

/**
 * The pinned CLIs installed as a person installs them: a folder of their own on PATH (links
 * to node_modules/.bin, which the app never counts as the person's: main/panes/env.ts).
 */
function installedAgents(): string {
  const dir = tempDir('agents');
  for (const name of ['claude', 'codex', 'gemini', 'opencode']) fs.symlinkSync(path.join(BIN, name), path.join(dir, name));
  return dir;
}

export interface AgentRig {
  model: ModelServer;
  serve: Serve;
  browser: Browser;
  win: TdPage;
  close(): Promise<void>;
}

export interface RigOptions {
  /** What every pane's environment gets besides (the model server's URL, a fake key). */
  env(modelUrl: string): Record<string, string>;
  /** The agent's own config files in the test's HOME, before the installer runs. */
  setup(home: string, cwd: string, modelUrl: string): void;
  /** The agent's own clean-up before the HOME goes (Codex's app-server daemon outlives the TUI). */
  teardown?(home: string): void;
}

/** Claude Code's rig: the model server by ANTHROPIC_BASE_URL and a fake key, first-run screens skipped (~/.claude.json), permission prompts on. */
export const CLAUDE_KEY = 'sk-ant-td-fake-key-0123456789abcdef';
/** Claude Code's environment against the model server at `url` (a fake key; no updater, telemetry or other traffic). */
export function claudeEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: CLAUDE_KEY,
    DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_ERROR_REPORTING: '1',
  };
}
/** Claude Code's own config in `home`: first-run screens skipped, the key approved, `cwds` trusted, permission prompts on. */
export function claudeConfig(home: string, cwds: string[], allow?: string[]): void {
  const projects = Object.fromEntries(cwds.flatMap((c) => [c, fs.realpathSync(c)]).map((c) => [c, { hasTrustDialogAccepted: true }]));
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    hasSeenAutoDefaultNudge: true,
    customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
    projects,
  }));
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default', ...(allow ? { allow } : {}) } }, null, 2));
}
export function claudeRig(opts: { allow?: string[]; setup?: (home: string, cwd: string) => void } = {}): Promise<AgentRig> {
  return agentRig('claude', {
    env: claudeEnv,
    setup: (home, cwd) => {
      opts.setup?.(home, cwd);
      claudeConfig(home, [cwd], opts.allow);
    },
  });
}

/** Codex's rig: the model server as a Responses `model_provider` in ~/.codex/config.toml (model "scripted"), permission prompts on; its app-server daemon stopped at the end. */
export function codexRig(): Promise<AgentRig> {
  return agentRig('codex', {
    env: () => ({ TD_CODEX_KEY: 'sk-td-fake-codex-key' }),
    setup: (home, cwd, url) => {
      fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
      fs.writeFileSync(path.join(home, '.codex', 'config.toml'), [
        'model = "scripted"',
        'model_provider = "td"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        'check_for_update_on_startup = false',
        '[model_providers.td]',
        'name = "Terminal Delight test model"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'env_key = "TD_CODEX_KEY"',
        `[projects."${fs.realpathSync(cwd)}"]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'));
    },
    // Codex starts an app-server daemon that outlives its TUI.
    teardown: (home) => { spawnSync(path.join(BIN, 'codex'), ['app-server', 'daemon', 'stop'], { env: { ...process.env, HOME: home }, timeout: 20_000 }); },
  });
}

/** Codex's first start after the installer asks to trust the new hooks, as it asks a person: trusted in its own screen. */
export async function trustCodexHooks(rig: AgentRig, paneId: string): Promise<void> {
  await rig.win.waitForText(paneId, /Hooks need review/, 120_000);
  await rig.win.focusTerminal(paneId);
  await rig.win.page.keyboard.press('2');
  await rig.win.page.keyboard.press('Enter');
  await rig.win.waitForText(paneId, /Ask Codex to do anything/, 60_000);
}

/**
 * OpenCode's rig: the model server as an `@ai-sdk/openai-compatible` provider in
 * ~/.config/opencode/opencode.json (model td/scripted), permission prompts on. OpenCode
 * installs `@opencode-ai/plugin` into its config folder the first time it starts (an npm
 * install); the folder's package.json and lock already name it, so nothing is downloaded.
 */
export function opencodeRig(): Promise<AgentRig> {
  return agentRig('opencode', {
    env: () => ({ OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' }),
    setup: (home, _cwd, url) => {
      const dir = path.join(home, '.config', 'opencode');
      fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
      const deps = { '@opencode-ai/plugin': '1.18.33' };
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: deps }));
      fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: deps } } }));
      fs.writeFileSync(path.join(dir, 'opencode.json'), JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        model: 'td/scripted',
        provider: { td: { npm: '@ai-sdk/openai-compatible', name: 'Terminal Delight test model', options: { baseURL: `${url}/v1`, apiKey: 'td-fake-opencode-key' }, models: { scripted: { name: 'Scripted', tool_call: true } } } },
        permission: { bash: 'ask', edit: 'ask' },
      }, null, 2));
    },
  });
}

/** Gemini CLI's rig: the model server by GOOGLE_GEMINI_BASE_URL and a fake key, the API key and a model chosen and the folder trusted in ~/.gemini. */
export function geminiRig(): Promise<AgentRig> {
  return agentRig('gemini', {
    env: (url) => ({ GEMINI_API_KEY: 'td-fake-gemini-key', GOOGLE_GEMINI_BASE_URL: url }),
    setup: (home, cwd) => {
      fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
      fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        model: { name: 'gemini-2.5-flash' },
        general: { disableAutoUpdate: true },
        privacy: { usageStatisticsEnabled: false },
      }, null, 2));
      fs.writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [fs.realpathSync(cwd)]: 'TRUST_FOLDER' }));
    },
  });
}

/** Gemini CLI takes a prompt once its SessionStart hooks have run (before that, Enter is lost). */
export async function geminiReady(rig: AgentRig, paneId: string, folder: string): Promise<void> {
  await rig.win.waitForText(paneId, /Type your message/, 120_000);
  await rig.win.waitFor(() => fs.existsSync(path.join(folder, 'inbound.jsonl')) && fs.readFileSync(path.join(folder, 'inbound.jsonl'), 'utf8').includes('"type":"session"'), 'the session to start', 60_000);
}

/**
 * A prompt as a person types it into Gemini CLI: once the hooks of its last turn have run,
 * a key at a time, Enter once the whole line shows in its input. (Typed in one burst right
 * after a turn, part of a line and its Enter were seen lost: "run the tests" arrived as
 * "run the", and a next line was never sent.)
 */
export async function geminiPrompt(win: TdPage, id: string, text: string): Promise<void> {
  await win.waitFor(async () => !/Executing Hooks/.test(await win.text(id, 40)), 'Gemini CLI\'s hooks to finish', 60_000);
  await prompt(win, id, text, { delayMs: 40, echoed: new RegExp(`> ${text}\\s*$`, 'm') });
}

/**
 * Starts the model server, then serve with `opts.env(modelUrl)` added to every pane's
 * environment, runs `opts.setup` and the installer for `agent`, and opens a window.
 * Closing it ends whatever the agent left running from the test's HOME.
 */
export async function agentRig(agent: string, opts: RigOptions): Promise<AgentRig> {
  const model = await new ModelServer().start();
  const agents = installedAgents();
  const serve = await startServe({ env: { PATH: `${agents}:${process.env.PATH}`, ...opts.env(model.url) } });
  opts.setup(serve.home, serve.cwd, model.url);
  const r = spawnSync(path.join(ROOT, 'bin', 'terminal-delight'), ['hooks', '--agent', agent, ...(agent === 'claude' ? ['--no-mcp'] : [])], {
    env: { ...serve.env, TD_NODE: process.execPath }, encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`terminal-delight hooks --agent ${agent} failed: ${r.stderr}`);
  const browser = await launchBrowser();
  const win = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1500, height: 950 } });
  return {
    model, serve, browser, win,
    async close() {
      await win.close().catch(() => undefined);
      await browser.close();
      try {
        opts.teardown?.(serve.home);
      } finally {
        endLeftovers(serve.home);
        await serve.close();
        await model.close();
        fs.rmSync(agents, { recursive: true, force: true });
      }
    },
  };
}

/** Ends the processes an agent left running from `home` (its own daemons, started by the test): found by their command line. */
export function endLeftovers(home: string): number[] {
  const mine = (pid: string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(home);
    } catch {
      return false;
    }
  };
  const pids = fs.existsSync('/proc') ? fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid && mine(d)).map(Number) : [];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids;
}

/**
 * Records every agent status the pane's header shows, in order, from the window's store
 * (a subscription, so a status that lasts a moment is not missed); read with the returned function.
 */
export async function statusLog(win: TdPage, paneId: string): Promise<() => Promise<string[]>> {
  await win.page.evaluate((id) => {
    const w = window as unknown as { __statusLog?: Record<string, string[]>; __td: { store: { getState(): { panes: Record<string, { agent?: { status: string } }> }; subscribe(f: (s: { panes: Record<string, { agent?: { status: string } }> }) => void): () => void } } };
    const log: string[] = [];
    (w.__statusLog ??= {})[id] = log;
    const note = (s: { panes: Record<string, { agent?: { status: string } }> }) => {
      const st = s.panes[id]?.agent?.status;
      if (st && log.at(-1) !== st) log.push(st);
    };
    note(w.__td.store.getState());
    w.__td.store.subscribe(note);
  }, paneId);
  return () => win.page.evaluate((id) => [...((window as unknown as { __statusLog: Record<string, string[]> }).__statusLog[id] ?? [])], paneId);
}

/** Whether `seq` appears in `log` in this order (other statuses may come between). */
export function inOrder(log: readonly string[], seq: readonly string[]): boolean {
  let i = 0;
  for (const s of log) if (s === seq[i]) i++;
  return i === seq.length;
}

/** Starts `agent` as a person does, with "+ Agent" and its row in the chooser, in a new pane with its bench open; returns the pane id and folder. */
export async function newAgentPane(rig: AgentRig, agent: string): Promise<{ paneId: string; folder: string }> {
  const { win } = rig;
  const before = new Set(await win.paneIds());
  await win.page.getByRole('button', { name: '+ Agent' }).click();
  const row = win.page.getByRole('dialog', { name: 'Start an agent' }).locator(`[role="option"][data-agent="${agent}"]`);
  await row.waitFor();
  expect(await row.getAttribute('aria-disabled'), `${agent} to be installed (its link on PATH)`).toBeNull();
  await row.click();
  let paneId = '';
  await win.waitFor(async () => {
    paneId = (await win.paneIds()).find((id) => !before.has(id)) ?? '';
    return paneId !== '';
  }, 'the agent pane');
  const header = win.header(paneId);
  if ((await win.page.locator(`[data-pane-id="${paneId}"] .pane-bench`).count()) === 0) await header.getByRole('button', { name: 'Open bench' }).click();
  const folder = await paneFolder(win, rig.serve, paneId);
  await waitForBenchFile(win, folder);
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
export async function prompt(win: TdPage, paneId: string, text: string, opts: { delayMs?: number; echoed?: RegExp } = {}): Promise<void> {
  await win.focusTerminal(paneId);
  await win.page.keyboard.type(text, { delay: opts.delayMs ?? 0 });
  // Enter only once the agent shows the whole line in its input (a key it dropped would otherwise go unseen)
  if (opts.echoed) await win.waitForText(paneId, opts.echoed, 20_000, 40);
  await new Promise((r) => setTimeout(r, 300));
  await win.page.keyboard.press('Enter');
}

/** The same card in a light window of its own, photographed (the tests take the dark one themselves). */
export async function shotLight(rig: AgentRig, paneId: string, cardId: string, name: string): Promise<void> {
  const light = await openWindow(rig.browser, rig.serve, { theme: 'light', viewport: { width: 1500, height: 950 } });
  try {
    const l = await card(light, paneId, { id: cardId }, 'the card in a light window');
    await shot(l.locator, name);
  } finally {
    await light.close();
  }
}

/**
 * A reply whose text carries a td block (a response surface with `id`) becomes that card
 * on the bench once `send` has sent the prompt; the header then says done.
 */
export async function tdReplyCard(rig: AgentRig, paneId: string, id: string, send: () => Promise<void>, timeoutMs = 90_000): Promise<void> {
  const { win, model } = rig;
  const n = model.main().length;
  model.script({ text: `The tests pass.\n\n\`\`\`td\n{"td":"0.4","kind":"response","id":"${id}","model":{"layman":"All 12 tests pass."}}\n\`\`\`` });
  await send();
  await model.mainRequest(n, timeoutMs);
  const reply = await card(win, paneId, { id, shelf: 'Replies' }, 'the td block as a card', timeoutMs);
  expect(await reply.locator.innerText()).toContain('All 12 tests pass.');
  await win.waitFor(async () => (await headerStatus(win, paneId)) === 'done', 'the header to say done', 60_000);
}

/** On a failed test, prints what the agent showed, what its hooks wrote, the statuses seen and the requests the model got. */
export function reportFailures(get: () => { rig?: AgentRig; paneId?: string; folder?: string; statuses?: () => Promise<string[]> }): void {
  afterEach(async (ctx) => {
    const { rig, paneId, folder, statuses } = get();
    if (ctx.task.result?.state !== 'fail' || !rig || !paneId || !folder) return;
    const file = path.join(folder, 'inbound.jsonl');
    const events = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-12).join('\n') : '(no events)';
    const requests = rig.model.requests.map((r) => `${r.main ? 'main' : 'side'}:${r.turn ? ('tool' in r.turn ? r.turn.tool : 'text') : ''}`).join(' ');
    console.error(`pane:\n${(await rig.win.text(paneId)).split('\n').slice(-30).join('\n')}\nevents:\n${events}\nstatuses: ${statuses ? (await statuses()).join(' → ') : '(not recorded)'}\nrequests: ${requests}`);
  });
}

export { openWindow };
