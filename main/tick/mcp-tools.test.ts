/**
 * The Tick MCP tools through the SDK's real Client, over a real `terminal-delight mcp`
 * child (StdioClientTransport) connected to a real McpHost, with real panes and Ticks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../core.ts';
import { McpHost } from '../mcp/server.ts';
import { PaneService } from '../panes/service.ts';
import { LOGIN_BASH, tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { install, uninstall } from '../tick-packages/install.ts';
import { treeEntries } from '../tick-packages/tree.ts';
import { TickHost } from './host.ts';
import { tickTools } from './mcp-tools.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');
const COUNTER = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');

let state: ReturnType<typeof tempState>;
let core: Core;
let panes: PaneService;
let host: TickHost;
let mcp: McpHost;
let writes: boolean;
let client: Client;

beforeEach(async () => {
  state = tempState('td-tickmcp-');
  core = new Core();
  writes = true;
  panes = new PaneService({ core, paths: statePaths(state.env), env: state.env, cwd: state.dir });
  host = new TickHost({ core, panes, env: state.env, mcpWrites: () => writes });
  host.install(core);
  mcp = new McpHost({ socketPath: statePaths(state.env).socket, settings: () => ({ mcpServer: true, mcpWrites: writes }) });
  mcp.addTools(tickTools(host, { panes, mcpWrites: () => writes }));
  await mcp.listen();
});

afterEach(async () => {
  await client?.close().catch(() => undefined);
  await mcp.close();
  await host.dispose();
  panes.dispose();
  state.cleanup();
});

async function connect(paneId: string): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(state.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp'], env: { ...env, TD_NODE: process.execPath, TD_PANE_ID: paneId }, stderr: 'pipe' });
  client = new Client({ name: 'tick-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function tool(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; json: Record<string, unknown>; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const text = r.content[0]?.text ?? '';
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // a plain sentence
  }
  return { isError: r.isError === true, json, text };
}

describe('Tick MCP tools over the real MCP server', () => {
  it('lists, opens, describes, reads, calls with an approval given and one refused, subscribes and closes', async () => {
    const agent = panes.create({ command: LOGIN_BASH, cwd: state.dir });
    await connect(agent.id);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['TickManage', 'TickDescribe', 'TickRead', 'TickCall', 'TickUpdate']));

    const opened = await tool('TickManage', { action: 'open', command: [process.execPath, COUNTER], cwd: state.dir, title: 'Counter' });
    expect(opened).toMatchObject({ isError: false, json: { kind: 'example.counter', title: 'Counter', status: 'ready' } });
    const id = opened.json.instance as string;

    const list = await tool('TickManage', { action: 'list' });
    expect(list.json.instances).toEqual(expect.arrayContaining([
      { instance: id, kind: 'example.counter', title: 'Counter', status: 'ready' },
      { instance: `shell:${agent.id}`, kind: 'shell', title: expect.any(String), status: 'ready' },
    ]));

    expect(await tool('TickDescribe', { instance: id })).toMatchObject({ json: { descriptor: { revision: '1', recover_with: 'history' }, untrusted: expect.any(String) } });
    expect(await tool('TickRead', { instance: id })).toMatchObject({ json: { seq: 0, data: { value: 0, recent: [] }, trimmed: false } });

    const sub = await tool('TickManage', { action: 'subscribe', instance: id, interval_ms: 100 });
    const subscription = sub.json.subscription as string;
    expect(await tool('TickUpdate', { subscription, timeout_ms: 50 })).toMatchObject({ json: { delivered: false } });

    // An approval given.
    const approved = tool('TickCall', { instance: id, tool: 'increment', args: { amount: 2 } });
    const ask = await waitFor(() => host.approvals.pending()[0], 'the approval card');
    expect(ask).toMatchObject({ askingPaneId: agent.id, tool: 'increment', args: { amount: 2 }, revision: '1' });
    expect(await core.request('approval.answer', { approvalId: ask.id, approve: true }, { id: 'w' })).toEqual({ ok: true });
    expect(await approved).toMatchObject({ isError: false, json: { outcome: 'executed', approval: 'approved', result: { value: 2 }, outcome_in_words: expect.stringMatching(/^executed/) } });

    // One refused.
    const refused = tool('TickCall', { instance: id, tool: 'increment', args: { amount: 5 } });
    const ask2 = await waitFor(() => host.approvals.pending()[0], 'the second approval card');
    host.approvals.answer(ask2.id, false);
    expect(await refused).toMatchObject({ isError: true, json: { outcome: 'not_executed', approval: 'refused', outcome_in_words: expect.stringMatching(/^not executed/) } });

    // Non-mutating: no approval. Bad args: never sent.
    expect(await tool('TickCall', { instance: id, tool: 'history', args: {} })).toMatchObject({ json: { outcome: 'executed', approval: 'not_needed', result: { changes: [{ seq: 1, value: 2 }] } } });
    expect(await tool('TickCall', { instance: id, tool: 'increment', args: { amount: 'x' } })).toMatchObject({ isError: true, json: { outcome: 'not_executed', error: { code: -32602 } } });
    expect(await tool('TickCall', { instance: id, tool: 'increment', args: { amount: 1 }, revision: '0' })).toMatchObject({ isError: true, json: { outcome: 'not_executed', error: { code: -32004 } } });

    // Two keyboard changes in the view, then one delivery with both merged.
    expect(await tool('TickManage', { action: 'input', instance: id, text: '++' })).toMatchObject({ json: { typed: true } });
    await waitFor(() => host.session(id)?.latest?.seq === 3, 'the keyboard updates');
    const delivery = await tool('TickUpdate', { subscription, timeout_ms: 10_000 });
    expect(delivery.json).toMatchObject({ delivered: true, deliveries: [{ subscription, instance: id, seq: 3, data: { value: 4 }, recover_with: 'history' }] });
    const merged = (delivery.json.deliveries as Array<{ merged: number }>)[0].merged;
    expect(merged).toBe(3); // the approved call's update and the two keystrokes

    // Control characters never reach a PTY from an agent's text.
    expect(await tool('TickManage', { action: 'input', instance: `shell:${agent.id}`, text: 'echo hi\u001b[2J' })).toMatchObject({ isError: true, text: expect.stringMatching(/control character/) });
    expect(host.approvals.pending()).toEqual([]);
    // Typing into a terminal pane waits for a person: refused, nothing is typed.
    const denied = tool('TickManage', { action: 'input', instance: `shell:${agent.id}`, text: 'echo never-$((6*7))', keys: ['enter'] });
    const ask3 = await waitFor(() => host.approvals.pending()[0], 'the typing approval card');
    expect(ask3).toMatchObject({ instanceId: `shell:${agent.id}`, tickPaneId: agent.id, askingPaneId: agent.id, tool: 'type into terminal', args: { text: 'echo never-$((6*7))', keys: ['enter'] } });
    expect(ask3.description).toContain('"echo never-$((6*7))" then the keys enter');
    host.approvals.answer(ask3.id, false);
    expect(await denied).toMatchObject({ isError: true, text: expect.stringMatching(/did not approve typing into shell:.*nothing was typed/) });
    expect(panes.allText(agent.id)).not.toContain('echo never');
    // Approved: typed.
    const typed = tool('TickManage', { action: 'input', instance: `shell:${agent.id}`, text: 'echo shell-$((40+2))', keys: ['enter'] });
    const ask4 = await waitFor(() => host.approvals.pending()[0], 'the second typing approval card');
    host.approvals.answer(ask4.id, true);
    expect(await typed).toMatchObject({ isError: false });
    await waitFor(async () => ((await tool('TickRead', { instance: `shell:${agent.id}` })).json.screen as string).includes('shell-42'), 'the shell screen');

    expect(await tool('TickManage', { action: 'close', instance: id })).toMatchObject({ json: { closed: true } });
    expect((await tool('TickManage', { action: 'list' })).json.instances).not.toContainEqual(expect.objectContaining({ instance: id }));
    expect(await tool('TickUpdate', { subscription, timeout_ms: 10 })).toMatchObject({ isError: true });
  });

  it('lists an installed package and opens it by name: its Skill where Claude Code reads Skills, the session ready; uninstalled byte for byte', async () => {
    const home = state.env.HOME!;
    const before = treeEntries(home);
    const agent = panes.create({ command: LOGIN_BASH, cwd: state.dir });
    await connect(agent.id);
    expect(await tool('TickManage', { action: 'packages' })).toMatchObject({ isError: false, json: { packages: [], note: expect.stringMatching(/No Tick packages are installed/) } });
    const installed = install('counter', { env: state.env, cwd: state.dir });
    expect(installed.ok).toBe(true);
    expect(fs.readFileSync(path.join(home, '.claude', 'skills', 'counter', 'SKILL.md'), 'utf8')).toMatch(/^---\nname: counter\n/);
    const folder = path.join(home, '.local', 'share', 'terminal-delight', 'ticks', 'counter');

    const listed = await tool('TickManage', { action: 'packages' });
    expect(listed.json).toEqual({
      packages: [{
        name: 'counter', description: expect.stringMatching(/^The Counter Tick/), scope: 'user', folder,
        open: { action: 'open', package: 'counter' },
        launch: { command: ['node', path.join(folder, 'counter.mjs')], cwd: folder, title: 'Counter' },
        prerequisites: [{ kind: 'command', text: 'command node', met: true }], ready: true,
      }],
      note: expect.stringMatching(/descriptor \(TickDescribe\) is the authoritative catalog/),
    });

    const opened = await tool('TickManage', { action: 'open', package: 'counter' });
    expect(opened).toMatchObject({ isError: false, json: { kind: 'example.counter', title: 'Counter', status: 'ready' } });
    const id = opened.json.instance as string;
    expect(await tool('TickRead', { instance: id })).toMatchObject({ json: { seq: 0, data: { value: 0, recent: [] } } });
    const pane = panes.get(host.get(id)!.paneId!)!;
    expect(pane).toMatchObject({ kind: 'tick', cwd: folder, title: 'Counter' });

    // One sentence for a name that is not installed, and for both command and package.
    expect(await tool('TickManage', { action: 'open', package: 'no-such-package' })).toMatchObject({ isError: true, json: { error: 'there is no installed Tick package named "no-such-package" (installed: counter); install it with terminal-delight tick install, or give a command line instead' } });
    expect(await tool('TickManage', { action: 'open', package: 'counter', command: ['node'] })).toMatchObject({ isError: true, json: { error: 'give either command or package, not both' } });
    // A project's package shadows the user's, found from the asking agent's folder.
    const project = path.join(state.dir, 'project');
    fs.mkdirSync(path.join(project, '.terminal-delight', 'ticks', 'counter'), { recursive: true });
    fs.writeFileSync(path.join(project, '.terminal-delight', 'ticks', 'counter', 'SKILL.md'), '---\nname: counter\ndescription: A project counter that needs a login.\nmetadata:\n  tick-command: node {package}/counter.mjs\n  tick-requires: env TD_TEST_PROJECT_TOKEN; Ask the person to sign in first.\n---\n');
    const fromProject = await tool('TickManage', { action: 'packages', cwd: project });
    expect(fromProject.json.packages).toEqual([expect.objectContaining({ name: 'counter', scope: 'project', ready: false, prerequisites: [
      { kind: 'env', text: 'env TD_TEST_PROJECT_TOKEN', met: false, detail: 'TD_TEST_PROJECT_TOKEN is not set' },
      { kind: 'text', text: 'Ask the person to sign in first.', met: null },
    ] })]);
    expect(await tool('TickManage', { action: 'open', package: 'counter', cwd: project })).toMatchObject({ isError: true, json: { error: 'the Tick package "counter" is not ready: TD_TEST_PROJECT_TOKEN is not set (Ask the person to sign in first); a person sets that up, then open it again' } });

    expect(await tool('TickManage', { action: 'close', instance: id })).toMatchObject({ json: { closed: true } });
    expect(uninstall('counter', { env: state.env, cwd: state.dir }).ok).toBe(true);
    expect(treeEntries(home)).toEqual(before);
  });

  it('refuses opening and mutating calls while "MCP writes" is off, and reports a failed open with the screen', async () => {
    const agent = panes.create({ command: LOGIN_BASH, cwd: state.dir });
    await connect(agent.id);
    const bad = await tool('TickManage', { action: 'open', command: ['/bin/sh', '-c', 'echo starting up >&2; echo not-json'], cwd: state.dir });
    expect(bad).toMatchObject({ isError: true, json: { error: expect.stringMatching(/failed to initialize: .*not valid JSON/), screen: expect.stringContaining('starting up') } });
    const opened = await tool('TickManage', { action: 'open', command: [process.execPath, COUNTER], cwd: state.dir });
    const id = opened.json.instance as string;
    writes = false;
    expect(await tool('TickManage', { action: 'open', command: [process.execPath, COUNTER] })).toMatchObject({ isError: true, text: expect.stringMatching(/MCP writes/) });
    expect(await tool('TickCall', { instance: id, tool: 'increment', args: { amount: 1 } })).toMatchObject({ isError: true, json: { outcome: 'not_executed', reason: expect.stringMatching(/MCP writes/) } });
    expect(await tool('TickCall', { instance: id, tool: 'history', args: {} })).toMatchObject({ isError: false, json: { outcome: 'executed' } });
    expect(await tool('TickManage', { action: 'input', instance: `shell:${agent.id}`, text: 'echo off', keys: ['enter'] })).toMatchObject({ isError: true, text: expect.stringMatching(/MCP writes/) });
    expect(host.approvals.pending()).toEqual([]);
  });
});
