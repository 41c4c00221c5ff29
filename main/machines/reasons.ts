/**
 * Machines, the pure parts (docs/design/remote.md): what a person types for a machine
 * (`[user@]host[:port]`), the `ssh` argv a link runs, and why a link failed, in one sentence
 * with the command that fixes it, read from `ssh`'s exit status and stderr.
 */

export interface Target {
  user?: string;
  host: string;
  port?: number;
}

/** `[user@]host[:port]` (an IPv6 address in brackets), or the sentence saying what is wrong. */
export function parseTarget(text: string): Target | string {
  const t = text.trim();
  const m = /^(?:([A-Za-z0-9._][A-Za-z0-9._-]{0,63})@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9._-]{0,252})(?::(\d{1,5}))?$/.exec(t);
  if (!m) return `"${t.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)}" is not a machine: give [user@]host[:port], as you would to ssh (a Host alias from ~/.ssh/config works too)`;
  const out: Target = { host: m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]! };
  if (m[1]) out.user = m[1];
  if (m[3]) {
    const port = Number(m[3]);
    if (port < 1 || port > 65535) return `port ${port} is not a port: give a whole number from 1 to 65535`;
    out.port = port;
  }
  return out;
}

export function targetText(t: Target): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user ? `${t.user}@` : ''}${host}${t.port ? `:${t.port}` : ''}`;
}

/** A machine's name: what the person gave (letters, digits, . _ -), else the host. `/` never: it qualifies pane ids. */
export function machineName(given: string | undefined, t: Target): string | { error: string } {
  const name = given ?? t.host.replace(/[^A-Za-z0-9._-]/g, '-');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(name)) return { error: `"${name.slice(0, 60)}" cannot name a machine: use up to 40 letters, digits, dots, dashes or underscores` };
  return name;
}

/**
 * The `ssh` a link runs: the system's own, BatchMode (nothing prompts a process no one sees),
 * keep-alives, and the far command. Nothing else: no host-key override, no forwards.
 * `config` is an ssh_config to read instead of ~/.ssh/config (TD_SSH_CONFIG).
 */
export function sshArgv(t: Target, farCommand: string, config?: string): string[] {
  return [
    '-T', '-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3',
    ...(config ? ['-F', config] : []),
    ...(t.port ? ['-p', String(t.port)] : []),
    ...(t.user ? ['-l', t.user] : []),
    '--', t.host, farCommand, 'bridge',
  ];
}

/** The far command, checked: a command name or path, for the far user's shell to run as it is. */
export function checkFarCommand(cmd: string): string | { error: string } {
  if (!/^[A-Za-z0-9_./~-]{1,1024}$/.test(cmd) || cmd.startsWith('-')) return { error: `"${cmd.slice(0, 80)}" cannot be the far command: give terminal-delight, or a path to it such as ~/td/bin/terminal-delight` };
  return cmd;
}

export type FailureKind = 'unreachable' | 'auth' | 'hostkey' | 'missing' | 'version' | 'bridge' | 'lost';

export interface Failure {
  kind: FailureKind;
  sentence: string;
}

/** The last line of ssh's stderr that says something, without control characters, nor its full stop (it goes in brackets mid-sentence). */
function lastSaid(stderr: string): string {
  const lines = stderr.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '').split('\n').map((l) => l.trim()).filter((l) => l && !/^(Warning: Permanently added|@+$)/.test(l));
  return (lines.pop() ?? '').slice(0, 200).replace(/\.+$/, '');
}

/** How ssh's own commands name the machine (`ssh DEST`, `ssh-copy-id DEST`): its host, with the user and port it was given. */
export function sshDestination(target: Target): string {
  return `${target.port ? `-p ${target.port} ` : ''}${target.user ? `${target.user}@` : ''}${target.host}`;
}

/**
 * Why a link ended before or after its hello, from ssh's exit status and stderr (what the
 * far side printed on stderr comes through it too). `connectCmd` is the command that tries
 * again; `dest` how ssh's commands in the fix name the machine (`sshDestination`: a
 * machine's name is not an ssh host when the person gave it another).
 */
export function linkFailure(name: string, exit: { code: number | null; signal: string | null; stderr: string }, connectCmd: string, dest = name): Failure {
  const err = exit.stderr;
  const said = lastSaid(err);
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(err)) {
    // ssh names the line to remove (its known_hosts file and the host as it is written there).
    const remove = /(ssh-keygen -f (["'])[^"'\n]{1,400}\2 -R (["'])[^"'\n]{1,300}\3)/.exec(err)?.[1] ?? `ssh-keygen -R ${dest.replace(/^-p \d+ /, '').replace(/^[^@]*@/, '')}`;
    return { kind: 'hostkey', sentence: `${name}'s host key has changed and ssh refuses it: check with its owner that it was changed, then run \`${remove}\` and \`ssh ${dest}\` once to accept the new one` };
  }
  if (/Host key verification failed|No .* host key is known/i.test(err)) {
    return { kind: 'hostkey', sentence: `ssh does not know ${name}'s host key yet: run \`ssh ${dest}\` once in a terminal to check and accept it, then \`${connectCmd}\`` };
  }
  if (/Permission denied|Too many authentication failures|no matching .*method|Authentication failed/i.test(err)) {
    return { kind: 'auth', sentence: `ssh could not log in to ${name} (${said}): add your key there with \`ssh-copy-id ${dest}\`, or load it into your agent with \`ssh-add\`, then \`${connectCmd}\`` };
  }
  if (/Could not resolve hostname|Connection refused|Connection timed out|No route to host|Network is unreachable|Operation timed out|Connection closed by remote host|kex_exchange_identification|port \d+: /i.test(err) && exit.code === 255) {
    return { kind: 'unreachable', sentence: `${name} is unreachable (${said}): check that it is up and its address and port are right, then \`${connectCmd}\`` };
  }
  if (exit.code === 127 || /terminal-delight: (command )?not found|No such file or directory/.test(err)) {
    return { kind: 'missing', sentence: `terminal-delight is not installed on ${name} (or not on its PATH for ssh commands): install Node 22.12 or newer and terminal-delight there (README, "Machines"), or give its path with \`${connectCmd} --command ~/path/to/terminal-delight\`` };
  }
  if (exit.code === 255) {
    return { kind: 'unreachable', sentence: `ssh could not reach ${name}${said ? ` (${said})` : ''}: run \`ssh ${dest}\` in a terminal to see why, then \`${connectCmd}\`` };
  }
  return { kind: 'lost', sentence: `the link to ${name} ended (${exit.signal ? `ssh stopped by ${exit.signal}` : `exit ${exit.code}`}${said ? `: ${said}` : ''})` };
}

/** A far bridge or service of another protocol: the sentence, with what updates the older side; undefined when they speak together. */
export function versionProblem(name: string, far: { bridge: number; version: string; protocol: number }, home: { bridge: number; version: string; protocol: number }): Failure | undefined {
  if (far.bridge === home.bridge && far.protocol === home.protocol) return undefined;
  const older = far.protocol < home.protocol || (far.protocol === home.protocol && far.bridge < home.bridge) ? 'far' : 'home';
  return {
    kind: 'version',
    sentence: older === 'far'
      ? `${name} runs terminal-delight ${far.version} (protocol ${far.protocol}), too old for this one (${home.version}, protocol ${home.protocol}): update terminal-delight there (README, "Machines"), then run \`terminal-delight service restart\` there`
      : `${name} runs terminal-delight ${far.version} (protocol ${far.protocol}), newer than this one (${home.version}, protocol ${home.protocol}): update terminal-delight on this machine (README, "Machines"), then run \`terminal-delight service restart\``,
  };
}

/** Seconds to wait before reconnect attempt `n` (0-based): 1, 2, 4, 8, 16, then 30, each ±20% (`rand` in [0, 1)). */
export function backoffMs(n: number, rand: number): number {
  const base = n < 5 ? 1000 * 2 ** n : 30_000;
  return Math.round(base * (0.8 + 0.4 * rand));
}
