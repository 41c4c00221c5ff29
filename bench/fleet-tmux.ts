/**
 * The fleet bench's peer (issue 38): tmux (Debian's, /usr/bin/tmux) measured as the bench
 * measures ours, as far as a terminal allows. A tmux server of its own (its own socket, -S in
 * a fresh folder; no configuration, -f /dev/null; `history-limit` as our terminals' 10,000;
 * status line as tmux's default), one window of 17 panes (`select-layout tiled`), each a
 * login bash in a quiet HOME with the prompt `td$ ` (as the bench starts ours: bash -l, the
 * same dotfiles); the first pane runs `cat` (the quiet pane), the other 16 `yes`. A
 * `tmux attach-session` client runs in a real PTY (node-pty) sized as our window is in our
 * cells (1600 x 1000 px at our font), its output parsed by @xterm/headless in this process:
 * a character is "drawn" once it is in that client's screen buffer, inside the quiet pane's
 * region (`list-panes`: each pane's left, top, width, height).
 *  - keys: after `select-pane` of the quiet pane, each key written to the attach PTY, from the
 *    write until the echo is in the client's buffer where the quiet pane is;
 *  - Ctrl-C into each flood in turn: `select-pane` of it (not timed), then \x03 written to the
 *    attach PTY, until that pane's prompt is in the client's buffer in its region (the next
 *    pane's select-pane is not awaited behind the earlier prompts);
 *  - Ctrl-C to all 16 at once: one `tmux send-keys -t %N C-c \; send-keys ...` command for the
 *    16 (a client that is not the attached one and gets no output, as ours is sent by a
 *    window-less client to each pane: keys to 16 panes at one moment, not typed), from its
 *    spawn until each prompt is in the attached client's buffer. (`synchronize-panes` would
 *    send the quiet pane's too, and needs a key typed in one pane: a different act.)
 * What differs from ours: ours is a page's keydown to the frame after the character is in
 * xterm.js's buffer (a browser's input, the page's socket, its parser and its renderer, one
 * frame); tmux's is a PTY write to the character parsed into a headless terminal in the bench
 * process (no renderer, no frame: a terminal emulator's drawing is not counted).
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import headless from '@xterm/headless';
import nodePty from 'node-pty';
import { tmuxServer } from './tmux-server.ts';
import { cpuSeconds } from './peer-apps.ts';

const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

export interface TmuxFleet {
  version: string;
  /** The attach client's size, and the quiet pane's. */
  cols: number;
  rows: number;
  quietSize: string;
  floodSize: string;
  /** Characters a second the attached client received while the keys beside the floods were timed. */
  clientRate: number;
  /** The server's CPU meanwhile, a share of one core. */
  serverCpu: number;
  /** The bench's own process meanwhile (the client's output read and parsed, the keys timed), a share of one core. */
  benchCpu: number;
  calm: number[];
  loaded: number[];
  stops: { each: number[]; span: number };
  together: number[];
}

interface Region { id: string; left: number; top: number; width: number; height: number }

/**
 * Runs tmux's side: `cols` x `rows` the client's size, `keys` keys each time, `floods` floods,
 * `history` its history-limit. The server is killed before this returns or throws.
 */
export async function tmuxFleet(opts: { cols: number; rows: number; keys: number; floods: number; history: number; log: (l: string) => void }): Promise<TmuxFleet> {
  const { cols, rows, keys, floods: FLOODS } = opts;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-fleet-tmux-'));
  const { version, sock, env, t } = tmuxServer(dir, path.join(dir, 'home'));
  /** Without blocking this process's loop (the attach client's output is parsed meanwhile). */
  const tAsync = (...args: string[]): Promise<void> => new Promise((resolve, reject) => {
    execFile('tmux', ['-S', sock, '-f', '/dev/null', ...args], { env, cwd: dir }, (err, _out, stderr) => (err ? reject(new Error(`tmux ${args.slice(0, 3).join(' ')} failed: ${stderr.trim() || err.message}`)) : resolve()));
  });
  let pty: nodePty.IPty | undefined;
  let server = 0;
  try {
    // The session at the client's size (the client attaching at that size keeps it).
    t('start-server', ';', 'set-option', '-g', 'history-limit', String(opts.history), ';', 'new-session', '-d', '-s', 'fleet', '-x', String(cols), '-y', String(rows));
    server = Number(t('display-message', '-p', '-t', 'fleet', '#{pid}').trim());
    for (let i = 0; i < FLOODS; i++) {
      t('split-window', '-t', 'fleet:0', '-d');
      t('select-layout', '-t', 'fleet:0', 'tiled');
    }
    // The client, in a real PTY, its output parsed by a real terminal emulator.
    const term = new headless.Terminal({ cols, rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    const checks = new Set<() => void>();
    const p = nodePty.spawn('tmux', ['-S', sock, 'attach-session', '-t', 'fleet'], { name: 'xterm-256color', cols, rows, cwd: dir, env: env as Record<string, string> });
    pty = p;
    let bytes = 0;
    p.onData((d) => {
      bytes += d.length;
      term.write(d, () => { for (const c of [...checks]) c(); });
    });
    const regions: Region[] = t('list-panes', '-t', 'fleet:0', '-F', '#{pane_id} #{pane_left} #{pane_top} #{pane_width} #{pane_height}').trim().split('\n').map((l) => {
      const [id, left, top, width, height] = l.split(' ');
      return { id: id!, left: Number(left), top: Number(top), width: Number(width), height: Number(height) };
    });
    if (regions.length !== FLOODS + 1) throw new Error(`tmux made ${regions.length} panes, not ${FLOODS + 1}`);
    /** A pane's text in the client's screen: its rows, each trimmed at the end, the empty ones dropped, joined. */
    const shown = (r: Region): string => {
      const b = term.buffer.active;
      let s = '';
      for (let y = r.top; y < r.top + r.height; y++) s += (b.getLine(b.viewportY + y)?.translateToString(true, r.left, r.left + r.width) ?? '').trimEnd();
      return s;
    };
    /** Resolves with performance.now() at the first parsed chunk after which `cond` holds. */
    const when = (cond: () => boolean, what: string, ms = 30_000): Promise<number> => new Promise((resolve, reject) => {
      if (cond()) return resolve(performance.now());
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`tmux: ${what} not in the attached client's screen within ${ms / 1000} s`));
      }, ms);
      const check = () => {
        if (!cond()) return;
        checks.delete(check);
        clearTimeout(timer);
        resolve(performance.now());
      };
      checks.add(check);
    });
    const prompted = (r: Region) => /td\$$/.test(shown(r));
    await Promise.all(regions.map((r) => when(() => prompted(r), `pane ${r.id}'s first prompt`, 60_000)));
    const [quiet, ...floods] = regions;
    opts.log(`tmux     server pid ${server}, client ${cols} x ${rows}; the quiet pane ${quiet!.width} x ${quiet!.height}, the floods ${[...new Set(floods.map((f) => `${f.width} x ${f.height}`))].join(', ')}`);
    const type = async (r: Region, line: string) => {
      await tAsync('select-pane', '-t', r.id);
      p.write(`${line}\r`);
    };
    /** ms from each key's write to the attach PTY until the quiet pane's region ends with it (and the keys before it). */
    let typed = '';
    const echoes = async (count: number): Promise<number[]> => {
      await tAsync('select-pane', '-t', quiet!.id);
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const ch = String.fromCharCode(97 + (i % 26));
        typed += ch;
        const want = typed.slice(-12);
        const seen = when(() => shown(quiet!).endsWith(want), `the echo of key ${i + 1}`);
        const t0 = performance.now();
        p.write(ch);
        times.push((await seen) - t0);
        await sleep(20 + (i % 7) * 3);
      }
      return times;
    };
    await type(quiet!, 'cat');
    await when(() => shown(quiet!).endsWith('td$ cat'), 'cat typed');
    await sleep(500);
    const calm = await echoes(keys);
    for (const f of floods) await type(f, 'yes');
    await sleep(3000);
    const bytes0 = bytes;
    const cpu0 = cpuSeconds(server) * 1000;
    const own0 = process.cpuUsage();
    const loadedAt = performance.now();
    const loaded = await echoes(keys);
    const clientRate = (bytes - bytes0) / ((performance.now() - loadedAt) / 1000);
    const serverCpu = (cpuSeconds(server) * 1000 - cpu0) / (performance.now() - loadedAt);
    const own = process.cpuUsage(own0);
    const benchCpu = (own.user + own.system) / 1000 / (performance.now() - loadedAt);
    // Ctrl-C into each flood in turn.
    const keyAt: number[] = [];
    const stopped = floods.map((f, i) => when(() => keyAt[i] !== undefined && prompted(f), `pane ${f.id}'s prompt after its Ctrl-C`));
    stopped.forEach((s) => s.catch(() => { /* awaited below */ }));
    for (const [i, f] of floods.entries()) {
      await tAsync('select-pane', '-t', f.id);
      keyAt[i] = performance.now();
      p.write('\x03');
    }
    const prompts = await Promise.all(stopped);
    const stops = { each: prompts.map((at, i) => at - keyAt[i]!), span: Math.max(...prompts) - Math.min(...keyAt) };
    // Again, the Ctrl-C to all 16 at once.
    for (const f of floods) await type(f, 'yes');
    await sleep(3000);
    if (floods.some((f) => prompted(f))) throw new Error('tmux: a flood did not start again');
    const all = floods.map((f) => when(() => prompted(f), `pane ${f.id}'s prompt after the Ctrl-C to all`));
    all.forEach((s) => s.catch(() => { /* awaited below */ }));
    const sentAt = performance.now();
    await tAsync(...floods.flatMap((f, i) => [...(i ? [';'] : []), 'send-keys', '-t', f.id, 'C-c']));
    const together = (await Promise.all(all)).map((at) => at - sentAt);
    return { version, cols, rows, quietSize: `${quiet!.width} x ${quiet!.height}`, floodSize: [...new Set(floods.map((f) => `${f.width} x ${f.height}`))].join(', '), clientRate, serverCpu, benchCpu, calm, loaded, stops, together };
  } finally {
    // The server, its panes' shells and what they run: all must be gone once it is killed.
    const pids = [server, ...(server ? spawnSync('tmux', ['-S', sock, 'list-panes', '-s', '-t', 'fleet', '-F', '#{pane_pid}'], { env, encoding: 'utf8' }).stdout.trim().split('\n').map(Number).filter((n) => n > 0) : [])];
    for (const pid of pids.slice(1)) pids.push(...spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number).filter((n) => n > 0));
    spawnSync('tmux', ['-S', sock, 'kill-server'], { env });
    if (pty) {
      const exited = new Promise<void>((r) => pty!.onExit(() => r()));
      await Promise.race([exited, sleep(2_000).then(() => pty!.kill())]);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    const alive = () => pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    for (let i = 0; i < 30 && alive().length; i++) await sleep(100);
    const left = alive();
    // (Said, and then killed: a bench leaves nothing running.)
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    opts.log(left.length ? `tmux     LEFT BEHIND after kill-server, killed now: ${left.join(' ')} (of its server, shells and their commands: ${pids.join(' ')})` : `tmux     its server, ${pids.length - 1} shells and commands all gone after kill-server`);
  }
}
