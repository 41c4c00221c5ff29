/**
 * Composition: builds the core and installs every service, in dependency order.
 * Both shells call `createApp()` and then carry `app.core` to their windows.
 */
import { Core } from './core.ts';
import { statePaths, type Paths } from './paths.ts';

export interface AppOptions {
  /** Which shell carries the contract. */
  shell: 'electron' | 'serve';
  env?: NodeJS.ProcessEnv;
  /** Folder the first pane starts in when there is nothing to restore. */
  cwd?: string;
  /** Start with no restored session (tests, `--fresh`). */
  fresh?: boolean;
}

export interface App {
  core: Core;
  paths: Paths;
  dispose(): Promise<void>;
}

export async function createApp(opts: AppOptions): Promise<App> {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  const core = new Core();
  // Services install here (each in its own folder): panes, surfaces, agent-channel, tick, mcp.
  return { core, paths, dispose: () => core.dispose() };
}
