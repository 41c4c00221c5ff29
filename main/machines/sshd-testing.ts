/**
 * "Another machine" for tests (docs/design/remote.md, "Tests"): Debian's OpenSSH server
 * started by the test itself on 127.0.0.1 and a free port, with its own sshd_config, host key,
 * pid file and log, key-only login, and a ForceCommand wrapper that gives every session the
 * far machine's own HOME, XDG folders and PATH (read from far.env each time, so a test can
 * take terminal-delight off it). The near side gets its own HOME with ~/.ssh/config (the
 * Host alias, the generated key, a known_hosts with the host key), pointed at by
 * TD_SSH_CONFIG: ssh reads the passwd entry's home, not $HOME. The real `ssh` client.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { appRoot } from '../panes/env.ts';
import { statePaths } from '../paths.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { stopService } from '../service/client.ts';
import { startService, type RunningService } from '../service/service.ts';

export const SSHD = '/usr/sbin/sshd';

export interface FarMachine {
  /** The Host alias in the near side's ssh config. */
  alias: string;
  port: number;
  near: ReturnType<typeof tempState>;
  far: ReturnType<typeof tempState>;
  /** The far side's environment as its sessions get it. */
  farEnv: NodeJS.ProcessEnv;
  /** Put terminal-delight on the far PATH (true) or take it off. */
  farInstalled(yes: boolean): void;
  /** Log in with a key the server does not know. */
  wrongKey(): void;
  /** Log in with the server's key again. */
  rightKey(): void;
  sshdLog(): string;
  /** `ssh ALIAS COMMAND` with the near side's config, as a person runs a command there. */
  ssh(command: string): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The server gets a new host key (a reinstalled machine, or one posing as it); it is restarted. */
  newHostKey(): Promise<void>;
  /** Stop the server listening (sessions already open go on), and start it again on the same port. */
  sshdDown(): Promise<void>;
  sshdUp(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'td-test', '-f', file], { stdio: 'ignore' });
}

/** `terminal-delight …` as a person on the near side runs it (its environment, this Node on PATH). */
export function nearCli(m: Pick<FarMachine, 'near'>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(appRoot, 'bin', 'terminal-delight'), args, { env: { ...m.near.env, PATH: `${path.dirname(process.execPath)}:${m.near.env.PATH}` } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `env`: more of the far machine's environment (what its person exports there, like an agent's API address and key). */
export async function startFarMachine(alias = 'far-box', opts: { env?: Record<string, string> } = {}): Promise<FarMachine> {
  const near = tempState('td-near-');
  const far = tempState('td-far-');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-sshd-'));
  const port = await freePort();
  // sshd running as root keeps its privilege separation in /run/sshd (the package's unit makes it).
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  keygen(path.join(dir, 'host_ed25519'));
  const ssh = path.join(near.env.HOME!, '.ssh');
  fs.mkdirSync(ssh, { mode: 0o700 });
  keygen(path.join(ssh, 'id_ed25519'));
  keygen(path.join(ssh, 'other_ed25519'));
  fs.copyFileSync(path.join(ssh, 'id_ed25519.pub'), path.join(dir, 'authorized_keys'));
  fs.writeFileSync(path.join(ssh, 'known_hosts'), `[127.0.0.1]:${port} ${fs.readFileSync(path.join(dir, 'host_ed25519.pub'), 'utf8')}`);
  const config = path.join(ssh, 'config');
  const writeConfig = (key: string): void => fs.writeFileSync(config, [
    `Host ${alias}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${os.userInfo().username}`,
    `  IdentityFile ${path.join(ssh, key)}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${path.join(ssh, 'known_hosts')}`,
    '  GlobalKnownHostsFile /dev/null',
    '  ConnectTimeout 10',
    '',
  ].join('\n'));
  writeConfig('id_ed25519');
  near.env.TD_SSH_CONFIG = config;
  delete near.env.SSH_AUTH_SOCK;

  // The far machine: its own home and folders, and a PATH with Node and (when installed) terminal-delight.
  const farBin = path.join(far.dir, 'bin');
  fs.mkdirSync(farBin);
  const farEnv: NodeJS.ProcessEnv = {
    HOME: far.env.HOME,
    XDG_STATE_HOME: far.env.XDG_STATE_HOME,
    XDG_CONFIG_HOME: path.join(far.dir, 'config'),
    XDG_DATA_HOME: path.join(far.dir, 'data'),
    XDG_CACHE_HOME: path.join(far.dir, 'cache'),
    TD_SOCKET: far.env.TD_SOCKET,
    SHELL: '/bin/bash',
    PS1: '$ ',
    LANG: 'C.UTF-8',
    // A test can make the far machine's terminal-delight another version (main/version.ts).
    TD_TEST: '1',
    TD_TEST_VERSION_FILE: path.join(far.dir, 'version'),
    PATH: `${farBin}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    ...opts.env,
  };
  Object.assign(far.env, farEnv);
  const envFile = path.join(dir, 'far.env');
  fs.writeFileSync(envFile, Object.entries(farEnv).map(([k, v]) => `export ${k}='${v}'\n`).join(''));
  const wrapper = path.join(dir, 'far-session.sh');
  fs.writeFileSync(wrapper, `#!/bin/sh\n. '${envFile}'\ncd "$HOME"\nexec /bin/sh -c "$SSH_ORIGINAL_COMMAND"\n`, { mode: 0o755 });
  const farInstalled = (yes: boolean): void => {
    const link = path.join(farBin, 'terminal-delight');
    fs.rmSync(link, { force: true });
    if (yes) fs.symlinkSync(path.join(appRoot, 'bin', 'terminal-delight'), link);
  };
  farInstalled(true);

  fs.writeFileSync(path.join(dir, 'sshd_config'), [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${path.join(dir, 'host_ed25519')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'UsePAM no',
    'StrictModes no',
    'PrintMotd no',
    'X11Forwarding no',
    'AllowTcpForwarding no',
    `ForceCommand ${wrapper}`,
    '',
  ].join('\n'));
  let log = '';
  let sshd: ChildProcess | undefined;
  const up = async (): Promise<void> => {
    const child = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd = child;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      log = (log + s).slice(-20_000);
    });
    await waitFor(() => new Promise<boolean>((resolve) => {
      if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${log}`);
      const s = net.createConnection(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    }), 'sshd to listen', 10_000, 50);
  };
  const down = async (): Promise<void> => {
    const child = sshd;
    sshd = undefined;
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  };
  await up();

  return {
    alias,
    port,
    near,
    far,
    farEnv: far.env,
    farInstalled,
    wrongKey: () => writeConfig('other_ed25519'),
    rightKey: () => writeConfig('id_ed25519'),
    sshdLog: () => log,
    ssh: (command) => new Promise((resolve) => {
      execFile('ssh', ['-F', config, '-o', 'BatchMode=yes', alias, command], { env: near.env }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    }),
    async newHostKey() {
      await down();
      for (const f of ['host_ed25519', 'host_ed25519.pub']) fs.rmSync(path.join(dir, f));
      keygen(path.join(dir, 'host_ed25519'));
      await up();
    },
    sshdDown: down,
    sshdUp: up,
    async stop() {
      await down();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A pane's folder on the far machine (where a file put there is a card on its bench), once the far service made it. */
export function farPaneFolder(m: FarMachine, paneId: string): Promise<string> {
  const root = statePaths(m.farEnv).surfaces;
  return waitFor(() => {
    for (const s of fs.existsSync(root) ? fs.readdirSync(root) : []) if (fs.existsSync(path.join(root, s, paneId))) return path.join(root, s, paneId);
    return undefined;
  }, 'the far pane\'s folder');
}

/** A far machine's end: its service stopped with its panes, its sshd stopped, both sides' state folders removed. */
export async function stopFarMachine(m: FarMachine | undefined): Promise<void> {
  if (!m) return;
  await stopService({ env: m.farEnv, endPanes: true }).catch(() => undefined);
  await m.stop();
  m.near.cleanup();
  m.far.cleanup();
}

/** A far machine, and a home service of the near side's own (its state, its ssh config) that can connect it. */
export async function startHomeAndFar(alias?: string): Promise<{ m: FarMachine; home: RunningService }> {
  const m = await startFarMachine(alias);
  const r = await startService({ env: m.near.env, fresh: true, idleMs: 0 });
  if (!r.started) throw new Error('no home service');
  return { m, home: r.service };
}

/** The end of startHomeAndFar: the home service, then the far machine. */
export async function stopHomeAndFar(s: { m?: FarMachine; home?: RunningService }): Promise<void> {
  await s.home?.stop('test over');
  await stopFarMachine(s.m);
}
