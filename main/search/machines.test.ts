/**
 * Search on another machine (main/search/machines.ts): a real sshd on 127.0.0.1 is the far
 * machine, the home service links to it with the real `ssh`; each service indexes its own
 * panes; `terminal-delight search --machine` asks the far one through the home service,
 * and `--machine '*'` both, the far pane's id qualified as the window knows it; the MCP tool
 * search_history takes the same `machine`, asked through the SDK's real Client over a real
 * `terminal-delight mcp`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../preload/contract.ts';
import { fakeAgent, waitFor } from '../panes/testing.ts';
import { appRoot } from '../panes/env.ts';
import { connectService } from '../service/client.ts';
import { type RunningService } from '../service/service.ts';
import { nearCli, startHomeAndFar, stopHomeAndFar, type FarMachine } from '../machines/sshd-testing.ts';
import { mergeHits } from './machines.ts';

describe('mergeHits', () => {
  const h = (id: number, at: number, paneId = 'p1'): SearchHit => ({ id, kind: 'output', at, paneId, session: 's', text: 't', marked: 't' });
  it('merges machines\' hits newest first, qualifying the far ones\' panes, up to the limit', () => {
    const merged = mergeHits([{ hits: [h(1, 30), h(2, 10)] }, { machine: 'box', hits: [h(1, 20), h(2, 5)] }], 3);
    expect(merged.map((x) => [x.paneId, x.at])).toEqual([['p1', 30], ['box/p1', 20], ['p1', 10]]);
  });
});

let m: FarMachine;
let home: RunningService;

beforeAll(async () => {
  ({ m, home } = await startHomeAndFar('search-box'));
}, 30_000);
afterAll(() => stopHomeAndFar({ m, home }));

const cli = (args: string[]) => nearCli(m, args);

const panesOf = (out: string): string[] => (JSON.parse(out) as { hits: SearchHit[] }).hits.map((x) => x.paneId);

describe('search on a connected machine', () => {
  it('finds what a far pane printed with --machine NAME, both machines\' with --machine \'*\', and refuses an unknown machine in one sentence', async () => {
    expect((await cli(['connect', m.alias])).code).toBe(0);
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const far = await conn.request('pane.create', { machine: m.alias, command: ['/bin/sh', '-c', 'echo zqxmachine far-$((6*7)); exec cat'] });
    const near = await conn.request('pane.create', { command: ['/bin/sh', '-c', 'echo zqxmachine near-$((6*7)); exec cat'] });
    expect(far.id).toMatch(new RegExp(`^${m.alias}/`));

    // This machine's index alone by default: the near pane, not the far one.
    await waitFor(async () => (await cli(['search', 'zqxmachine', '--json'])).code === 0 || undefined, 'the near line indexed');
    expect(panesOf((await cli(['search', 'zqxmachine', '--json'])).stdout)).toEqual([near.id]);
    // The far machine's, its pane qualified.
    await waitFor(async () => (await cli(['search', 'zqxmachine', '--machine', m.alias, '--json'])).code === 0 || undefined, 'the far line indexed there');
    const farHits = JSON.parse((await cli(['search', 'zqxmachine', '--machine', m.alias, '--json'])).stdout) as { hits: SearchHit[] };
    expect(farHits.hits.map((x) => [x.paneId, x.text])).toEqual([[far.id, 'zqxmachine far-42']]);
    // Both, newest first; and a qualified --pane goes to its machine.
    expect(new Set(panesOf((await cli(['search', 'zqxmachine', '--machine', '*', '--json'])).stdout))).toEqual(new Set([near.id, far.id]));
    expect(panesOf((await cli(['search', 'far', '--pane', far.id, '--json'])).stdout)).toEqual([far.id]);
    // The window's route: search.query stays with the home service, machine and all.
    expect(await conn.request('search.query', { query: 'near', machine: m.alias })).toEqual({ ok: true, hits: [] });
    const none = await cli(['search', 'zqxmachine', '--machine', 'elsewhere']);
    expect([none.code, none.stderr]).toEqual([2, 'terminal-delight search: no machine is named "elsewhere": connect it with + Machine… or `terminal-delight connect HOST`\n']);

    // The far service stops answering (SIGSTOP; its link stays up): every machine's search gives this
    // machine's hits once it has waited for it; asked alone, one sentence. Then it answers again.
    const farPid = (JSON.parse(fs.readFileSync(path.join(m.farEnv.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'), 'utf8')) as { pid: number }).pid;
    process.kill(farPid, 'SIGSTOP');
    try {
      expect(panesOf((await cli(['search', 'zqxmachine', '--machine', '*', '--json'])).stdout)).toEqual([near.id]);
      const late = await cli(['search', 'zqxmachine', '--machine', m.alias]);
      expect([late.code, late.stderr]).toEqual([2, `terminal-delight search: ${m.alias} did not answer the search within 8 s: try again, or search this machine\n`]);
    } finally {
      process.kill(farPid, 'SIGCONT');
    }
    expect(panesOf((await cli(['search', 'zqxmachine', '--machine', m.alias, '--json'])).stdout)).toEqual([far.id]);
    conn.close();
  }, 120_000);

  it('search_history (MCP) takes the same machine: a connected machine\'s name or \'*\', and refuses an unknown one in one sentence', async () => {
    if (!home.app.machines.connected().includes(m.alias)) expect((await cli(['connect', m.alias])).code).toBe(0);
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const far = await conn.request('pane.create', { machine: m.alias, command: ['/bin/sh', '-c', 'echo zqxmcp far-$((6*7)); exec cat'] });
    const near = await conn.request('pane.create', { command: ['/bin/sh', '-c', 'echo zqxmcp near-$((6*7)); exec cat'] });
    conn.close();
    // An agent pane on this machine (a program named codex), the tool turned on for it.
    const agent = home.app.panes.create({ command: [fakeAgent(m.near.dir, 'codex')] });
    expect(home.app.panes.get(agent.id)?.agentCli?.name).toBe('codex');
    home.app.settings.set({ search: { mcpAgents: ['codex'] } });

    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.near.env)) if (v !== undefined) env[k] = v;
    const client = new Client({ name: 'td-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: path.join(appRoot, 'bin', 'terminal-delight'), args: ['mcp'], env: { ...env, TD_NODE: process.execPath, TD_PANE_ID: agent.id }, stderr: 'pipe' }));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'search_history');
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toContain('machine');
      const ask = async (args: Record<string, unknown>) => {
        const r = await client.callTool({ name: 'search_history', arguments: { query: 'zqxmcp', ...args } });
        return { error: r.isError ? (r.content as Array<{ text: string }>)[0]!.text : undefined, hits: (r.structuredContent as { hits?: Array<{ paneId: string; text: string }> } | undefined)?.hits ?? [] };
      };
      // The far machine's own index, its pane qualified as the window knows it.
      const there = await waitFor(async () => ((await ask({ machine: m.alias })).hits.length > 0 ? (await ask({ machine: m.alias })).hits : undefined), 'the far line through MCP');
      expect(there.map((h) => [h.paneId, h.text])).toEqual([[far.id, 'zqxmcp far-42']]);
      // Without machine, this machine's alone; with '*', both.
      await waitFor(async () => ((await ask({})).hits.length > 0 || undefined), 'the near line through MCP');
      expect((await ask({})).hits.map((h) => h.paneId)).toEqual([near.id]);
      expect(new Set((await ask({ machine: '*' })).hits.map((h) => h.paneId))).toEqual(new Set([near.id, far.id]));
      expect(await ask({ machine: 'elsewhere' })).toEqual({ error: 'Refused: no machine is named "elsewhere": connect it with + Machine… or `terminal-delight connect HOST`.', hits: [] });
    } finally {
      await client.close().catch(() => undefined);
    }
  }, 120_000);
});
