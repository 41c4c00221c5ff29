/**
 * search_history through the SDK's real Client over a real `terminal-delight mcp` child
 * process, against a real app with real panes: off for every agent until the person names it.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { fakeAgent, tempState, waitFor } from '../panes/testing.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/terminal-delight');

let state: ReturnType<typeof tempState>;
let app: App;
let client: Client | undefined;

beforeEach(async () => {
  state = tempState();
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await app.dispose();
  state.cleanup();
});

const text = (r: unknown): string => ((r as { content: Array<{ text: string }> }).content[0]!.text);

describe('search_history (MCP)', () => {
  it('is off for every agent by default, and finds what another pane printed once the person turns it on for that agent', async () => {
    // An "agent" pane: a program named codex (it only waits), so the pane knows its agent.
    const fake = fakeAgent(state.dir, 'codex');
    const agent = app.panes.create({ command: [fake] });
    expect(app.panes.get(agent.id)?.agentCli?.name).toBe('codex');
    // Another pane prints a word.
    const shell = app.panes.create({ command: ['/bin/sh', '-c', 'echo migration-ran-by-other-agent; sleep 30'] });

    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(state.env)) if (v !== undefined) env[k] = v;
    client = new Client({ name: 'td-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: BIN, args: ['mcp'], env: { ...env, TD_NODE: process.execPath, TD_PANE_ID: agent.id }, stderr: 'pipe' }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_history');

    const off = await client.callTool({ name: 'search_history', arguments: { query: 'migration' } });
    expect(off.isError).toBe(true);
    expect(text(off)).toBe('Refused: search_history is off for codex — ask the person to turn on "Search history for Codex" in Terminal Delight\'s settings (MCP).');

    app.settings.set({ search: { mcpAgents: ['codex'] } });
    const on = await waitFor(async () => {
      const r = await client!.callTool({ name: 'search_history', arguments: { query: 'migration ran', kind: 'output' } });
      const hits = (r.structuredContent as { hits: Array<{ paneId: string; text: string }> } | undefined)?.hits ?? [];
      return hits.length > 0 ? hits : undefined;
    }, 'a hit through MCP');
    expect(on[0]).toMatchObject({ paneId: shell.id, text: 'migration-ran-by-other-agent' });

    const bad = await client.callTool({ name: 'search_history', arguments: { query: 'x', since: 'last tuesday' } });
    expect(text(bad)).toBe('Refused: "last tuesday" is not a date: give one like 2026-12-01 or 2026-12-01T09:30.');
  }, 60_000);
});
