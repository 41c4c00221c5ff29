/**
 * Composition: builds the core and installs every service, in dependency order.
 * Both shells call `createApp()` and then carry `app.core` to their windows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Core } from './core.ts';
import { statePaths, type Paths } from './paths.ts';
import { installPaneHandlers } from './panes/handlers.ts';
import { PaneService } from './panes/service.ts';
import { loadSession, restoreSession, SessionKeeper } from './state/session.ts';
import { SettingsService } from './state/settings.ts';
import { installSurfaces, type SurfaceService } from './surfaces/service.ts';
import { surfaceTools } from './surfaces/tools.ts';
import { McpHost } from './mcp/server.ts';
import { installAgentChannel, type AgentChannel } from './agent-channel/service.ts';
import { TickHost } from './tick/host.ts';
import { tickTools } from './tick/mcp-tools.ts';
import { installWorktrees, type WorktreeService } from './worktrees/service.ts';
import { installTurns } from './turns/service.ts';
import { ClientHub } from './clients/hub.ts';
import { installServiceHandlers } from './clients/handlers.ts';
import { Machines } from './machines/machines.ts';
import { SERVICE_STARTED_AT } from './version.ts';
import { NoticeBook } from './state/notices.ts';
import { installDevices, type DeviceService } from './devices/service.ts';
import { installSearch, type SearchService } from './search/service.ts';
import { searchTools } from './search/tools.ts';
import { installSearchOnMachines } from './search/machines.ts';
import { installUsage } from './usage/service.ts';

export interface AppOptions {
  /** Which shell carries the contract when the core runs inside it (tests); the service serves any. */
  shell?: 'electron' | 'serve';
  env?: NodeJS.ProcessEnv;
  /** Folder the first pane starts in when there is nothing to restore. */
  cwd?: string;
  /** Start with no restored session (tests, `--fresh`). */
  fresh?: boolean;
  /** How `service.quit` stops the process the core runs in (the service's main); absent: refused. */
  quit?: (endPanes: boolean) => void;
  /** When the machine booted (tests of the reboot reason); default from os.uptime(). */
  bootedAt?: number;
}

export interface App {
  core: Core;
  paths: Paths;
  /** The window's panes, layout and focus (PaneServiceApi and more). */
  panes: PaneService;
  settings: SettingsService;
  /** Surfaces: the per-pane benches and the routes into them (SurfaceServiceApi and more). */
  surfaces: SurfaceService;
  /** The app's MCP server (main/mcp): services add their tools with `mcp.addTools(defs)`. */
  mcp: McpHost;
  /** The agent channel (TDAC 0.2): hooks' events, answers, agent status, 'agent.new'. */
  agents: AgentChannel;
  /** The Tick host (main/tick): hosted Ticks, shell: instances, approvals, subscriptions. */
  ticks: TickHost;
  /** Agents in git worktrees (main/worktrees): the worktree.* requests, the Changes cards. */
  worktrees: WorktreeService;
  /** Search everything (main/search): the index, fed as things happen; 'search.query'. */
  search: SearchService;
  /** Every client of this core (windows through their relays, commands), whatever transport carries it. */
  hub: ClientHub;
  /** Other machines reached over ssh (main/machines): links, reconnects, windows' via frames. */
  machines: Machines;
  /** The device door (main/devices): phones paired, their inbox and agents list. */
  devices: DeviceService;
  /** Save the session with why the core stops, then hang up every pane and stop every service. */
  dispose(reason?: string): Promise<void>;
  /** End every pane cleanly (SIGHUP, then SIGTERM and SIGKILL to stragglers) and close every Tick; the session says `reason`. */
  endAll(reason: string, by?: string): Promise<void>;
}

export async function createApp(opts: AppOptions): Promise<App> {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  // Pane folders hold transcripts, comments and answers: the whole state folder is the user's alone.
  fs.mkdirSync(paths.state, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.state, 0o700);
  const core = new Core();
  // Panes, settings and the saved session (main/panes, main/state).
  const settings = new SettingsService(paths.settingsFile);
  settings.onChange((s) => core.emit('settings.changed', s));
  const saved = opts.fresh ? undefined : loadSession(paths.sessionFile);
  const panes = new PaneService({
    core, paths, env, cwd: opts.cwd ?? process.cwd(), session: saved?.session, scrollback: () => settings.get().scrollback,
    shellIntegration: () => settings.get().shellIntegration,
  });
  core.onDispose(() => panes.dispose());
  const keeper = new SessionKeeper(panes, paths.sessionFile, 300, { pid: process.pid, startedAt: SERVICE_STARTED_AT });
  let stopReason = 'the service was stopped';
  core.onDispose(() => keeper.stop(stopReason));
  // Before the session is saved and the panes hung up (disposers run last-installed first).
  core.onDispose(() => panes.saveScreens());
  const notices = new NoticeBook(path.join(paths.state, 'notices.json'));
  installPaneHandlers(core, panes, settings, opts.shell, () => {
    const out: string[] = [];
    const keep = settings.get().windowClose === 'keep' && notices.once('close-keeps-running', 'Closing this window keeps your panes running; to end them all, use Quit and end all panes (Ctrl+Shift+Q).');
    if (keep) out.push(keep);
    return out;
  });
  // Surfaces (main/surfaces): the file poller, transcripts, actions, artifact files.
  const surfaces = installSurfaces(core, panes);
  // 'artifact.reveal' is the Electron shell's (shell.openPath in main/electron/main.ts); a browser downloads the file instead.
  if (opts.shell !== 'electron') core.handle('artifact.reveal', () => ({ ok: false, error: 'This window runs in a browser: download the file and open it from your downloads.' }));
  // The MCP server (main/mcp) on the per-user socket; services add ToolDef lists to it.
  const mcp = new McpHost({ socketPath: paths.socket, settings: () => settings.get() });
  mcp.addTools(surfaceTools(surfaces, panes));
  // Ticks (main/tick): the host, its tick.* and approval.* requests, its MCP tools.
  const ticks = new TickHost({ core, panes, env, mcpWrites: () => settings.get().mcpWrites });
  ticks.install(core);
  mcp.addTools(tickTools(ticks, { panes, mcpWrites: () => settings.get().mcpWrites }));
  try {
    await mcp.listen();
  } catch (e) {
    process.stderr.write(`terminal-delight: the MCP server is not running: ${(e as Error).message}\n`);
  }
  core.onDispose(() => mcp.close());
  // The agent channel (main/agent-channel): inbound.jsonl, answers/, agent status, agent.new.
  const agents = installAgentChannel({ core, panes, surfaces, settings, env });
  // Agents in worktrees (main/worktrees): worktree.* requests, worktrees.json, Changes cards.
  // Changes by turn (main/turns): turns.jsonl, checkpoints, the card's views, turns.* requests.
  const turns = installTurns({ core, panes, surfaces, env, paths });
  const worktrees = installWorktrees({ core, panes, surfaces, settings, env, paths, newAgentPane: (req) => agents.newAgentPane(req), turns });
  turns.linkWorktrees({ owns: (id) => worktrees.owns(id), refresh: (id) => worktrees.refreshPane(id), allDiff: (id) => worktrees.allDiff(id) });
  turns.start();
  // Search everything (main/search): pane output, commands, agents' events, surfaces, actions, Tick calls.
  const search = installSearch({ core, panes, settings, paths, surfaces, ticks, log: (line) => void process.stderr.write(`terminal-delight: ${line}\n`) });
  mcp.addTools(searchTools(core, { panes, settings: () => settings.get() }));
  // Usage and cost of each agent session (main/usage): read from its transcript, shown in its pane's header.
  installUsage(core, panes, paths, env);
  // Other services install here (each in its own folder): surfaces, agent-channel, tick, mcp.

  // The clients (main/clients/hub.ts) and the service's own requests.
  const hub = new ClientHub(core);
  core.onDispose(() => hub.dispose());
  const endAll = async (reason: string, by?: string): Promise<void> => {
    await panes.saveScreens();
    keeper.stop(reason);
    stopReason = reason;
    await Promise.all([panes.endAll(undefined, by), ticks.closeAll()]);
  };
  installServiceHandlers(core, { panes, ticks, hub, quit: opts.quit });
  // Other machines over the person's own ssh (main/machines): their links, and windows' via frames.
  const machines = new Machines({ core, settings, env, layout: panes });
  hub.via = machines;
  installSearchOnMachines(core, machines);
  // The device door (main/devices), off unless it was turned on.
  const devices = installDevices({ core, panes, surfaces, stateDir: paths.state, machines });

  // Last, so every service above sees the restored panes arrive (onCreated).
  if (saved) restoreSession(panes, saved, settings.get().resumeAtStart, opts.bootedAt);
  // Records of the panes as they are now (ended, resumed), before anything else happens.
  keeper.saveNow();
  return {
    core, paths, panes, settings, surfaces, agents, mcp, ticks, worktrees, search, hub, machines, devices, endAll,
    dispose: (reason?: string) => {
      if (reason) stopReason = reason;
      return core.dispose();
    },
  };
}
