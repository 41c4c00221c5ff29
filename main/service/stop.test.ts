// `terminal-delight service stop` ends what it says it ends (issue 35, item 2): a program
// that ignores SIGHUP, run from a pane's shell or as a pane's own program, does not survive
// the stop; and a pane whose program outlived a killed service is never resumed beside it.
// Real services (spawned as every entry point spawns them), real PTYs, real perl.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempState, waitFor } from '../panes/testing.ts';
import { processAlive } from '../panes/proc.ts';
import { processRecord } from '../panes/ending.ts';
import { statePaths } from '../paths.ts';
import { createApp } from '../app.ts';
import { connectService, stopService, type ServiceConnection } from './client.ts';

const IGNORES_HUP = '$SIG{HUP}="IGNORE"; sleep 1 while 1';

let state: ReturnType<typeof tempState>;
let conn: ServiceConnection | undefined;

beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  conn?.close();
  conn = undefined;
  await stopService({ env: state.env });
  // Whatever a failed run left: no perl of this test outlives it.
  for (const pid of perls(path.basename(state.dir))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  state.cleanup();
});

/** Whether `pid` runs: kill(pid, 0) succeeds and it is not a zombie waiting for its parent to collect it. */
const alive = (pid: number): boolean => processAlive(pid);

/** The live perl processes whose arguments hold `marker`. */
function perls(marker: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (path.basename(argv[0] ?? '') === 'perl' && argv.includes(marker) && alive(Number(name))) out.push(Number(name));
  }
  return out;
}

describe.runIf(process.platform === 'linux')('service stop', () => {
  it('ends a program that ignores SIGHUP, run from a pane\'s shell and as a pane\'s own program; a window hears each ended by service stop', async () => {
    const inShell = `in-shell-${randomBytes(4).toString('hex')}`;
    const own = `own-${randomBytes(4).toString('hex')}`;
    conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir, fresh: true });
    const hello = await conn.request('app.hello', {});
    const shell = hello.panes[0]!.id;
    await waitFor(async () => (await conn!.request('pane.snapshot', { paneId: shell })).data.includes('$'), 'the shell\'s prompt', 30_000);
    await conn.request('pane.input', { paneId: shell, data: `perl -e '${IGNORES_HUP}' ${inShell}\r` });
    const ownPane = await conn.request('pane.create', { command: ['perl', '-e', IGNORES_HUP, own] });
    const [first] = await waitFor(() => (perls(inShell).length === 1 ? perls(inShell) : undefined), 'the perl the shell started', 30_000);
    const [second] = await waitFor(() => (perls(own).length === 1 ? perls(own) : undefined), 'the pane\'s own perl', 30_000);
    // A window stays attached: it hears each pane end, and that the stop ended it (not "killed by signal 1").
    const ends = new Map<string, string | undefined>();
    conn.onEvent('pane.updated', (p) => {
      if (p.status === 'exited') ends.set(p.id, p.endedBy);
    });

    const stop = await runCli(['service', 'stop'], state.env);
    expect(stop.stdout).toBe('stopped\n');
    expect(stop.code).toBe(0);
    // The stop returns once the service is gone, and the service goes once its panes' programs are.
    expect(alive(first!)).toBe(false);
    expect(alive(second!)).toBe(false);
    expect(Object.fromEntries(ends)).toEqual({ [shell]: 'service stop', [ownPane.id]: 'service stop' });
  }, 120_000);

  it('says so when the service does not stop: one that does not answer (SIGSTOP) makes the stop reject, naming its pid, and nothing is taken from under it', async () => {
    conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir, fresh: true });
    const pid = conn.hello.pid;
    conn.close();
    conn = undefined;
    process.kill(pid, 'SIGSTOP');
    try {
      await expect(stopService({ env: state.env, timeoutMs: 1_000 })).rejects.toThrow(`the service (pid ${pid}) did not stop within 1 s of being asked to`);
      expect(alive(pid)).toBe(true);
      expect(fs.existsSync(statePaths(state.env).serviceLock)).toBe(true);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Going again, it takes the line (or the next one) and stops.
    await stopService({ env: state.env });
    await waitFor(() => !alive(pid), 'the service to be gone');
    expect(await stopService({ env: state.env })).toBe(false);
  }, 120_000);

  it('never resumes a pane beside the program it ran before the service was killed: that one is ended first', async () => {
    const marker = `resumed-${randomBytes(4).toString('hex')}`;
    conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir, fresh: true });
    const servicePid = conn.hello.pid;
    const pane = await conn.request('pane.create', { command: ['perl', '-e', IGNORES_HUP, marker] });
    const [before] = await waitFor(() => (perls(marker).length === 1 ? perls(marker) : undefined), 'the pane\'s perl', 30_000);
    conn.close();
    conn = undefined;
    // Killed, the service ends nothing: its terminal's hang-up is all perl gets, and it ignores that.
    process.kill(servicePid, 'SIGKILL');
    await waitFor(() => !alive(servicePid), 'the service to be gone');
    expect(alive(before!)).toBe(true);

    conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir });
    const info = (await conn.request('app.hello', {})).panes.find((p) => p.id === pane.id);
    expect(info?.ended?.reason).toBe('the service stopped unexpectedly (killed or crashed)');
    const resumed = await conn.request('pane.resume', { paneId: pane.id });
    expect(resumed.status).toBe('running');
    const now = await waitFor(() => (perls(marker).length > 0 ? perls(marker) : undefined), 'the resumed perl', 30_000);
    // One copy: the resumed one, not the one from before.
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(before);
    expect(alive(before!)).toBe(false);
  }, 120_000);

  it('refuses, in one sentence, to resume a pane beside its program from before; pane.resume ends that program first', async () => {
    const marker = `before-${randomBytes(4).toString('hex')}`;
    // What a killed service leaves: the pane's program, in a session of its own, and the pane's record naming it.
    const before = spawn('perl', ['-e', IGNORES_HUP, marker], { detached: true, stdio: 'ignore' });
    const pid = before.pid!;
    await waitFor(() => perls(marker).includes(pid), 'the perl from before');
    const paths = statePaths(state.env);
    fs.mkdirSync(paths.state, { recursive: true });
    fs.writeFileSync(paths.sessionFile, JSON.stringify({
      version: 2, session: '20261204-abcdef12', savedAt: new Date().toISOString(), layout: null, focused: null,
      panes: [{ id: 'p1', tag: 'abcd1234', kind: 'shell', command: ['perl', '-e', IGNORES_HUP, marker], cwd: state.dir, running: true, process: processRecord(pid) }],
    }));
    const app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir });
    try {
      expect(app.panes.get('p1')?.ended?.reason).toBe('the service stopped unexpectedly (killed or crashed)');
      expect(() => app.panes.resume('p1')).toThrow(`pane "p1" cannot resume while its program from before (pid ${pid}) still runs without its terminal: end it (kill -TERM -- -${pid}) and resume again`);
      expect(alive(pid)).toBe(true);
      const resumed = await app.core.request('pane.resume', { paneId: 'p1' }, { id: 'test' });
      expect(resumed.status).toBe('running');
      expect(alive(pid)).toBe(false);
      const now = await waitFor(() => (perls(marker).length > 0 ? perls(marker) : undefined), 'the resumed perl');
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(pid);
    } finally {
      await app.endAll('test over');
      await app.dispose('test over');
    }
  }, 120_000);
});
