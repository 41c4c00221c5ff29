/**
 * The MCP tool `search_history`: an agent looks up what other agents and shells in the
 * person's panes did (the search index, main/search). Off for every agent until the person
 * names it in settings.search.mcpAgents (the tool answers with that sentence until then).
 * Asked as the window and the CLI ask (`search.query` through the core), so `machine` reaches
 * a connected machine's index, or every machine's with '*' (main/search/machines.ts).
 */
import type { SearchQuery, Settings } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { ToolDef, ToolResult } from '../mcp/tool.ts';
import type { PaneServiceApi } from '../services.ts';
import { paneOfAgent } from '../surfaces/tools.ts';

const KINDS = ['command', 'output', 'prompt', 'reply', 'tool', 'surface', 'decision', 'tick', 'failed'] as const;

/** Each agent's name as the settings screen shows it. */
const SHOWN: Record<string, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' };

/** Why this agent may not search, or undefined when it may. */
export function searchRefusal(agent: string | undefined, settings: Settings['search']): string | undefined {
  if (!agent) return 'search_history answers only agents running in a Terminal Delight pane — pass your own process id as `pid`';
  if (!settings.mcpAgents.includes(agent as Settings['search']['mcpAgents'][number])) {
    return `search_history is off for ${agent} — ask the person to turn on "Search history for ${SHOWN[agent] ?? agent}" in Terminal Delight's settings (MCP)`;
  }
  return undefined;
}

export function searchTools(core: Core, deps: { panes: PaneServiceApi; settings: () => Settings }): ToolDef[] {
  const tool: ToolDef = {
    name: 'search_history',
    description: [
      'Search what happened in the person\'s Terminal Delight panes: terminal output (also what scrolled away and panes that ended), commands with their exit status and folder, agents\' prompts, replies and tool runs, surfaces and the decisions taken on them (with comments), Tick calls.',
      'Words match whole words; the last word also matches as a prefix. Newest first.',
    ].join(' '),
    inputSchema: (z) => ({
      pid: z.number().int().positive().optional().describe('Your own process id (the agent\'s), so the app can find your pane.'),
      query: z.string().min(1).max(500).describe('Words to look for.'),
      kind: z.enum(KINDS).optional().describe('Only this kind of entry; "failed" is commands that did not exit 0.'),
      agent: z.string().max(40).optional().describe('Only entries of this agent (claude, codex, gemini, opencode).'),
      folder: z.string().max(4096).optional().describe('Only entries in this folder or below it.'),
      since: z.string().max(40).optional().describe('Only entries at or after this date (2026-12-01 or an ISO time).'),
      machine: z.string().min(1).max(200).optional().describe('A connected machine\'s name: search its panes instead of this machine\'s (their pane ids come back as name/paneId); "*": this machine\'s and every connected one\'s.'),
      limit: z.number().int().min(1).max(100).optional().describe('At most this many hits (default 20).'),
    }),
    writes: false,
    async handler(args, ctx): Promise<ToolResult> {
      const paneId = paneOfAgent(deps.panes, typeof args.pid === 'number' ? args.pid : undefined, ctx);
      const agent = paneId ? deps.panes.get(paneId)?.agentCli?.name : undefined;
      const no = searchRefusal(agent, deps.settings().search);
      if (no) return { isError: true, text: `Refused: ${no}.` };
      const q: SearchQuery = {
        query: String(args.query),
        limit: typeof args.limit === 'number' ? args.limit : 20,
        ...(typeof args.kind === 'string' ? { kind: args.kind as (typeof KINDS)[number] } : {}),
        ...(typeof args.agent === 'string' ? { agent: args.agent } : {}),
        ...(typeof args.folder === 'string' ? { folder: args.folder } : {}),
        ...(typeof args.since === 'string' ? { since: args.since } : {}),
        ...(typeof args.machine === 'string' ? { machine: args.machine } : {}),
      };
      const r = await core.request('search.query', q, { id: `mcp-${paneId}` });
      if (!r.ok) return { isError: true, text: `Refused: ${r.error}.` };
      return { json: { hits: r.hits.map(({ marked: _m, ...h }) => ({ ...h, at: new Date(h.at).toISOString() })) } };
    },
  };
  return [tool];
}
