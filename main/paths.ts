/** Where Terminal Delight keeps its files, from the environment (XDG on every platform). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Paths {
  /** $XDG_STATE_HOME/terminal-delight */
  state: string;
  /** The folder holding every session's pane folders. */
  surfaces: string;
  /** The saved window: layout, panes and their cwd. */
  sessionFile: string;
  settingsFile: string;
  /** The per-user socket `terminal-delight mcp` connects to (mode 0600). */
  socket: string;
  /** The service's folder (mode 0700): its socket, token, lock and log. */
  run: string;
  /** The contract socket windows and commands reach the service on (docs/design/service.md). */
  serviceSocket: string;
  /** The secret a client's hello carries (mode 0600, new at each service start). */
  serviceToken: string;
  serviceLock: string;
  serviceLog: string;
  /** The port the last serve listened on, tried first by the next (the browser's cache is per origin). */
  servePort: string;
  /** Why the last service was stopped on purpose ({how, message, at}), for the serve that waits meanwhile; removed when one starts. */
  serviceStopped: string;
}

/** The home folder of `env`: its HOME when that is absolute, else the process's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
}

/** $XDG_STATE_HOME when absolute, else ~/.local/state of `env`'s home. */
export function stateHomeOf(env: NodeJS.ProcessEnv): string {
  return env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(homeOf(env), '.local', 'state');
}

export function statePaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const stateHome = stateHomeOf(env);
  const state = path.join(stateHome, 'terminal-delight');
  return {
    state,
    surfaces: path.join(state, 'surfaces'),
    sessionFile: path.join(state, 'session.json'),
    settingsFile: path.join(state, 'settings.json'),
    socket: env.TD_SOCKET || path.join(state, 'run', 'app.sock'),
    run: path.join(state, 'run'),
    serviceSocket: env.TD_SERVICE_SOCKET || path.join(state, 'run', 'service.sock'),
    serviceToken: env.TD_SERVICE_TOKEN_FILE || path.join(state, 'run', 'service.token'),
    serviceLock: path.join(state, 'run', 'service.lock'),
    serviceLog: path.join(state, 'run', 'service.log'),
    servePort: path.join(state, 'run', 'serve-port'),
    serviceStopped: path.join(state, 'run', 'service.stopped'),
  };
}

/** The pane folder: $XDG_STATE_HOME/terminal-delight/surfaces/$TD_SESSION/$TD_PANE_ID */
export function paneFolder(paths: Pick<Paths, 'surfaces'>, session: string, paneId: string): string {
  return path.join(paths.surfaces, session, paneId);
}

/** Every pane folder on disk (this service's and earlier ones', running and ended): surfaces/<session>/<pane>. */
export function paneFolders(paths: Pick<Paths, 'surfaces'>): string[] {
  const out: string[] = [];
  let sessions: string[] = [];
  try {
    sessions = fs.readdirSync(paths.surfaces);
  } catch {
    return out;
  }
  for (const s of sessions) {
    try {
      for (const p of fs.readdirSync(path.join(paths.surfaces, s))) out.push(paneFolder(paths, s, p));
    } catch {
      // not a folder
    }
  }
  return out;
}
