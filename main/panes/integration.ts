/**
 * Shell integration: how a pane starts bash, zsh or fish so that the person's own startup
 * files run as usual, then the app's bin/ and TD_* variables are put back and the shell
 * marks its prompts (OSC 133) and folder (OSC 7). Injected the way VS Code does it, never
 * by editing the person's files:
 *
 * - bash: `bash --init-file shell-integration/bash.sh` (an interactive non-login bash reads
 *   it instead of ~/.bashrc); for a login shell (`-l`) the script reads /etc/profile and
 *   the first of ~/.bash_profile, ~/.bash_login, ~/.profile itself, as `bash -l` would
 *   (--init-file is not read by a login shell). TD_SI_LOGIN=1 says which.
 * - zsh: ZDOTDIR points at a folder of the app's .zshenv/.zprofile/.zshrc/.zlogin, each
 *   running the person's own file from their ZDOTDIR (TD_SI_ZDOTDIR, else $HOME).
 * - fish: `--init-command` (run after config.fish and conf.d) sources
 *   shell-integration/fish.fish, which puts back TD_SI_BIN and the TD_* values kept in
 *   TD_SI_KEPT (the environment, not argv: any user can read a process's argv).
 *
 * Any other shell, any other arguments (`-c`, `--norc`, a script), or the setting off:
 * the pane starts its command exactly as given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { appRoot, unpacked } from './env.ts';

/** Where the scripts are (outside the asar archive in a packaged app: electron-builder.yml unpacks main/). */
export const SCRIPTS = unpacked(path.join(appRoot, 'main', 'panes', 'shell-integration'));

export type IntegratedShell = 'bash' | 'zsh' | 'fish';

/** What the pane's process is started with. */
export interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface IntegrationOptions {
  /** The app's bin/ folder, put back first on PATH. */
  bin: string;
  /** The scripts folder (SCRIPTS unless a test says otherwise). */
  scripts?: string;
  /** Makes (or refreshes) the zsh ZDOTDIR folder and returns it (zshDotdir below). */
  zdotdir(): string;
}

/** Arguments each shell may be started with for the integration to apply: login and interactive flags only. */
const FLAGS: Record<IntegratedShell, { login: RegExp; other: RegExp }> = {
  bash: { login: /^(-l|--login|-il|-li)$/, other: /^(-i)$/ },
  zsh: { login: /^(-l|--login|-il|-li)$/, other: /^(-i|--interactive)$/ },
  fish: { login: /^(-l|--login|-il|-li)$/, other: /^(-i|--interactive)$/ },
};

/** The shell this argv starts, when it is one the integration knows and its arguments allow it. */
export function integratedShell(command: readonly string[]): { shell: IntegratedShell; login: boolean } | undefined {
  const name = path.basename(command[0] ?? '').replace(/^-/, '');
  if (name !== 'bash' && name !== 'zsh' && name !== 'fish') return undefined;
  const flags = FLAGS[name];
  let login = false;
  for (const arg of command.slice(1)) {
    if (flags.login.test(arg)) login = true;
    else if (!flags.other.test(arg)) return undefined;
  }
  return { shell: name, login };
}

/** The argv and environment that start `command` with the integration, or undefined to start it as it is. */
export function integrate(command: readonly string[], env: Record<string, string>, opts: IntegrationOptions): Launch | undefined {
  const found = integratedShell(command);
  if (!found) return undefined;
  const scripts = opts.scripts ?? SCRIPTS;
  const file = command[0]!;
  switch (found.shell) {
    case 'bash': {
      const script = path.join(scripts, 'bash.sh');
      if (!readable(script)) return undefined;
      const next: Record<string, string> = { ...env, TD_SI_BIN: opts.bin };
      if (found.login) next.TD_SI_LOGIN = '1';
      else delete next.TD_SI_LOGIN;
      // Flags other than the login ones (-i) carry over; the script does the login part.
      const args = command.slice(1).filter((a) => !FLAGS.bash.login.test(a));
      return { file, args: ['--init-file', script, ...args], env: next };
    }
    case 'zsh': {
      let dir: string;
      try {
        dir = opts.zdotdir();
      } catch {
        return undefined;
      }
      // The person's ZDOTDIR ('' when unset: the scripts use $HOME and leave it unset again).
      const own = env.ZDOTDIR && path.resolve(env.ZDOTDIR) !== path.resolve(dir) ? env.ZDOTDIR : '';
      const next: Record<string, string> = { ...env, ZDOTDIR: dir, TD_SI_BIN: opts.bin, TD_SI_ZDOTDIR: own };
      return { file, args: command.slice(1), env: next };
    }
    case 'fish': {
      const script = path.join(scripts, 'fish.fish');
      if (!readable(script)) return undefined;
      // fish reads the person's configuration before anything of ours: the values to put
      // back travel beside the ones they may change, one NAME=value a line.
      const kept = Object.keys(env).filter((k) => k.startsWith('TD_') && !k.startsWith('TD_SI_') && !env[k]!.includes('\n')).sort().map((k) => `${k}=${env[k]}`);
      return { file, args: [...command.slice(1), '--init-command', `source ${fishQuote(script)}`], env: { ...env, TD_SI_BIN: opts.bin, TD_SI_KEPT: kept.join('\n') } };
    }
  }
}

/** A fish single-quoted string: only \ and ' are escaped there. */
export function fishQuote(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** The zsh dotfiles as zsh looks for them in ZDOTDIR, and the script each one is. */
export const ZSH_FILES: ReadonlyArray<[string, string]> = [
  ['.zshenv', 'zshenv.zsh'],
  ['.zprofile', 'zprofile.zsh'],
  ['.zshrc', 'zshrc.zsh'],
  ['.zlogin', 'zlogin.zsh'],
];

/**
 * The ZDOTDIR the app's zsh panes start with: `<stateDir>/shell-integration/zsh`, mode 0700,
 * holding copies of the zsh scripts under their dotfile names (copies, not links: an
 * AppImage's files move at every start). Rewritten only when a script changed.
 */
export function zshDotdir(stateDir: string, scripts = SCRIPTS): string {
  const dir = path.join(stateDir, 'shell-integration', 'zsh');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [dot, script] of ZSH_FILES) {
    const text = fs.readFileSync(path.join(scripts, 'zsh', script), 'utf8');
    const target = path.join(dir, dot);
    let current: string | undefined;
    try {
      current = fs.readFileSync(target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== text) {
      const tmp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, target);
    }
  }
  return dir;
}

function readable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
