/**
 * Two ways to run a Tick under a session: in a pane (the launcher inside a new pane's
 * PTY, protocol relayed over a private Unix socket) or directly (pipes, no view). Both
 * give a `Runner`: the session, the view's screen, and termination of the process group.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { PaneServiceApi } from '../services.ts';
import { LIMITS } from './limits.ts';
import { spawnDirect, terminateGroup } from './process.ts';
import { type SessionOptions, TickSession } from './session.ts';

export const LAUNCHER = path.join(import.meta.dirname, 'launcher.mjs');

export interface Runner {
  session: TickSession;
  /** The pane showing the Tick, when it runs in one. */
  paneId?: string;
  /** The view's screen as text (a direct Tick's standard error). */
  screen(): string;
  alive(): boolean;
  /** SIGTERM to the process group, SIGKILL after the grace; resolves once it is gone. */
  terminate(): Promise<void>;
}

export interface StartOptions extends SessionOptions {
  file: string;
  args: string[];
  cwd: string;
  /** The public id the Tick sees as TICKLOOP_INSTANCE_ID. */
  instanceId: string;
  /** The instance id the pane shows (`hosted:<id>`). */
  paneInstanceId: string;
  title: string;
  /** Keep the pane out of the layout until a view is asked for. */
  detached?: boolean;
  /** Called with every chunk each way (wire captures). */
  wire?: (dir: 'in' | 'out', chunk: Buffer) => void;
}

let runDir: string | undefined;
/** A private folder (0700) for the instances' sockets. */
function socketDir(): string {
  if (!runDir || !fs.existsSync(runDir)) runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-tick-'));
  return runDir;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalName(n: number | undefined): string | null {
  if (!n) return null;
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === n) return name;
  return `signal ${n}`;
}

/** Start the launcher in a new pane and connect the session to it once it dials back. */
export async function startInPane(panes: PaneServiceApi, opts: StartOptions): Promise<Runner> {
  const token = randomBytes(24).toString('hex');
  const sockPath = path.join(socketDir(), `${opts.instanceId}.sock`);
  fs.rmSync(sockPath, { force: true });
  const server = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(sockPath, () => resolve());
  });
  fs.chmodSync(sockPath, 0o600);

  let sock: net.Socket | undefined;
  let paneId: string | undefined;
  let running = true;
  let socketEnded = false;
  let exitInfo: { code: number | null; signal: string | null } | undefined;
  let pending: string[] = [];

  let pgid: number | undefined;
  const terminate = async () => {
    if (running && pgid) await terminateGroup(pgid, () => running && groupExists(pgid!), opts.limits?.killGraceMs ?? LIMITS.killGraceMs);
  };
  const session = new TickSession(
    {
      write(line) {
        const buf = Buffer.from(line + '\n', 'utf8');
        opts.wire?.('in', buf);
        if (sock) sock.write(buf);
        else pending.push(line); // before the launcher dials back: sent once it does
      },
      kill() {
        void terminate();
      },
    },
    opts,
  );
  const end = () => {
    if (exitInfo) session.exited(exitInfo.code, exitInfo.signal);
    else session.eof();
  };

  server.on('connection', (s) => {
    if (sock) {
      s.destroy();
      return;
    }
    let head = Buffer.alloc(0);
    const onHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl === -1) {
        if (head.length > 256) s.destroy();
        return;
      }
      s.off('data', onHead);
      const got = head.subarray(0, nl);
      const want = Buffer.from(token);
      if (got.length !== want.length || !timingSafeEqual(got, want)) {
        s.destroy();
        return;
      }
      sock = s;
      server.close();
      fs.rmSync(sockPath, { force: true });
      s.on('data', (chunk: Buffer) => {
        opts.wire?.('out', chunk);
        session.feed(chunk);
      });
      s.on('end', () => {
        socketEnded = true;
        // Wait briefly for the launcher's exit, to report the Tick's exit status.
        setTimeout(end, exitInfo ? 0 : 500).unref();
      });
      s.on('error', () => {});
      for (const line of pending) s.write(line + '\n');
      pending = [];
      const rest = head.subarray(nl + 1);
      if (rest.length) {
        opts.wire?.('out', rest);
        session.feed(rest);
      }
    };
    s.on('data', onHead);
    s.on('error', () => {});
  });

  const offExit = panes.onExit((pane) => {
    if (pane.id !== paneId) return;
    running = false;
    offExit();
    exitInfo = { code: pane.exitCode ?? null, signal: signalName(pane.signal) };
    if (socketEnded || !sock) end();
    else setTimeout(end, 300).unref();
  });
  const offRemoved = panes.onRemoved((id) => {
    if (id !== paneId) return;
    offExit();
    offRemoved();
    session.close('the Tick\'s pane was closed');
  });
  session.onEnd(() => {
    server.close();
    fs.rmSync(sockPath, { force: true });
  });

  const electron = process.versions.electron !== undefined;
  try {
    const pane = panes.create({
      kind: 'tick',
      command: [process.execPath, LAUNCHER, opts.file, ...opts.args],
      cwd: opts.cwd,
      env: {
        TICKLOOP_INSTANCE_ID: opts.instanceId,
        TICKLOOP_SOCKET: sockPath,
        TICKLOOP_TOKEN: token,
        TERM: 'xterm-256color',
        COLORTERM: 'truecolor',
        ...(electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
      },
      cols: 120,
      rows: 30,
      title: opts.title,
      instanceId: opts.paneInstanceId,
      detached: opts.detached,
    });
    paneId = pane.id;
    // The launcher leads the PTY's session and process group: kept, so the group can be
    // ended even after the pane is gone.
    pgid = panes.pid(pane.id);
  } catch (e) {
    server.close();
    fs.rmSync(sockPath, { force: true });
    session.close('the pane could not be made');
    throw e;
  }
  const id = paneId;
  return {
    session,
    paneId: id,
    screen: () => {
      try {
        return panes.screenText(id);
      } catch {
        return '';
      }
    },
    alive: () => running,
    terminate,
  };
}

/** Run a Tick directly (pipes, its own process group): no view; the screen is its stderr. */
export function startDirect(command: string[], opts: SessionOptions & { cwd: string; instanceId: string; env?: NodeJS.ProcessEnv; wire?: StartOptions['wire'] }): Runner {
  const t = spawnDirect(command, opts);
  let running = true;
  void t.exited.then(() => {
    running = false;
  });
  return {
    session: t.session,
    screen: () => t.stderr(),
    alive: () => running,
    terminate: () => t.terminate(opts.limits?.killGraceMs),
  };
}
