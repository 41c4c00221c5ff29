import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { acquireLock, holderAlive, readLock } from './lock.ts';
import { processAlive, processStartTicks } from '../panes/proc.ts';

let state: ReturnType<typeof tempState>;
let file: string;
beforeEach(() => {
  state = tempState();
  file = path.join(state.dir, 'service.lock');
});
afterEach(() => state.cleanup());

/** A pid that was a process a moment ago and is gone now. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
}

describe('the service lock', () => {
  it('is taken once; a second taker is told who holds it; release removes only its own record', () => {
    const a = acquireLock(file, '1.0.0');
    expect(a.held).toBe(true);
    const b = acquireLock(file, '1.0.0');
    expect(b).toMatchObject({ held: false, holder: { pid: process.pid, version: '1.0.0' } });
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    if (a.held) a.release();
    expect(fs.existsSync(file)).toBe(false);
    // A later service's lock is never removed by an earlier one's release.
    const c = acquireLock(file, '1.0.0');
    if (a.held) a.release();
    expect(fs.existsSync(file)).toBe(c.held);
  });

  it('takes over a lock whose holder is gone (a crash, kill -9, a reboot)', () => {
    fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), version: '0.9.0', startedAt: '2026-01-01T00:00:00.000Z' }));
    const a = acquireLock(file, '1.0.0');
    expect(a.held).toBe(true);
    expect(readLock(file)).toMatchObject({ pid: process.pid, version: '1.0.0' });
    expect(fs.readdirSync(state.dir).filter((f) => f.includes('stale'))).toEqual([]);
  });

  it('does not take a reused pid for the holder (Linux: the start time differs)', () => {
    const mine = processStartTicks(process.pid);
    expect(mine).toBeGreaterThan(0);
    const rec = { pid: process.pid, startTicks: mine! - 1, version: '0.9.0', startedAt: '' };
    expect(holderAlive(rec)).toBe(false);
    expect(holderAlive({ ...rec, startTicks: mine })).toBe(true);
    fs.writeFileSync(file, JSON.stringify(rec));
    expect(acquireLock(file, '1.0.0').held).toBe(true);
  });

  it('takes over a lock whose holder has ended but not been collected (a zombie: its parent, a resting serve\'s sh, has not waited yet)', async () => {
    // `sleep 0` ends as a child of the `sleep 30` its shell became, which never collects it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout!.once('data', (d) => r(String(d).trim()))));
      const zombie = async (): Promise<boolean> => {
        for (let i = 0; i < 100; i++) {
          if (/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) return true;
          await new Promise((r) => setTimeout(r, 20));
        }
        return false;
      };
      expect(await zombie()).toBe(true);
      // kill(pid, 0) still answers for a zombie: that alone would call it alive.
      expect(() => process.kill(pid, 0)).not.toThrow();
      const rec = { pid, startTicks: processStartTicks(pid), version: '0.9.0', startedAt: '' };
      expect(processAlive(pid)).toBe(false);
      expect(holderAlive(rec)).toBe(false);
      fs.writeFileSync(file, JSON.stringify(rec));
      expect(acquireLock(file, '1.0.0').held).toBe(true);
      expect(processAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('treats a young empty lock as a service starting, an old one as stale', () => {
    fs.writeFileSync(file, '');
    expect(acquireLock(file, '1.0.0').held).toBe(false);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    expect(acquireLock(file, '1.0.0').held).toBe(true);
  });

  it('never removes a new lock another taker put in place of the stale one it judged, even when both are empty', () => {
    fs.writeFileSync(file, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    let fresh: number | undefined;
    // Between this taker's judging the old empty lock stale and its moving it aside: another
    // taker moved it, removed it, and made its own, not written yet (empty too).
    // (The rename's way, where flock cannot be used: with flock nothing is moved.)
    const a = acquireLock(file, '1.0.0', {
      renameOnly: true,
      beforeMove() {
        fs.renameSync(file, `${file}.other`);
        fs.rmSync(`${file}.other`);
        fs.writeFileSync(file, '', { mode: 0o600 });
        fresh = fs.statSync(file).ino;
      },
    });
    expect(fresh).toBeDefined();
    expect(a.held).toBe(false);
    // The other taker's lock is where it was: the same file, not one this taker made.
    expect(fs.statSync(file).ino).toBe(fresh);
    expect(fs.readdirSync(state.dir).filter((n) => n.startsWith('service.lock'))).toEqual(['service.lock']);
  });

  it.each([
    ['a stale lock, by flock', false, true],
    ['a stale lock, by rename, where flock cannot be used', true, true],
    // (With none, the first makes it and the others may read it while it is empty: none of them may keep the maker from taking it.)
    ['no lock file yet, by flock, eight rounds', false, false],
  ])('lets exactly one of many processes racing for the lock hold it (%s)', async (_how, renameOnly, stale) => {
    for (let round = 0; round < (stale ? 1 : 8); round++) await race(renameOnly, stale);
  }, 60_000);

  async function race(renameOnly: boolean, stale: boolean): Promise<void> {
    fs.rmSync(file, { force: true });
    if (stale) fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), version: '0.9.0', startedAt: '' }));
    const script = `import { acquireLock } from ${JSON.stringify(path.join(import.meta.dirname, 'lock.ts'))};
const r = acquireLock(${JSON.stringify(file)}, 'x', { renameOnly: ${renameOnly} });
process.stdout.write(r.held ? 'held' : 'not');
// Held until the test has every answer (its stdin ends), however slowly the others start.
process.stdin.on('end', () => { if (r.held) r.release(); }).resume();`;
    const n = stale ? 6 : 8;
    const children = Array.from({ length: n }, () => spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const exits = children.map((p) => new Promise((resolve) => p.on('close', resolve)));
    const runs = await Promise.all(children.map((p) => new Promise<string>((resolve) => {
      let out = '';
      p.stdout.on('data', (d) => {
        out += d;
        if (out === 'held' || out === 'not') resolve(out);
      });
      p.on('close', () => resolve(out));
    })));
    for (const p of children) p.stdin.end();
    await Promise.all(exits);
    expect(runs.filter((r) => r === 'held')).toHaveLength(1);
    expect(runs.filter((r) => r === 'not')).toHaveLength(n - 1);
  }

  it('leaves a live holder its lock whatever the file says: a taker never moves or removes it (the kernel\'s flock decides), and takes it once the holder is killed', async () => {
    const script = `import { acquireLock } from ${JSON.stringify(path.join(import.meta.dirname, 'lock.ts'))};
const r = acquireLock(${JSON.stringify(file)}, 'holder');
process.stdout.write(r.held ? 'held' : 'not');
process.stdin.resume();`;
    const holder = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const ended = new Promise((resolve) => holder.on('close', resolve));
    try {
      expect(await new Promise<string>((resolve) => holder.stdout!.once('data', (d) => resolve(String(d))))).toBe('held');
      const ino = fs.statSync(file).ino;
      // Its record as a taker that read the file at the wrong moment, or a crash's leftover, would see it: a holder gone.
      fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), version: '0.9.0', startedAt: '' }));
      for (let i = 0; i < 3; i++) expect(acquireLock(file, '1.0.0').held).toBe(false);
      expect(fs.statSync(file).ino).toBe(ino);
      expect(fs.readdirSync(state.dir).filter((n) => n.startsWith('service.lock'))).toEqual(['service.lock']);
      holder.kill('SIGKILL');
      await ended;
      const taken = acquireLock(file, '1.0.0');
      expect(taken.held).toBe(true);
      expect(readLock(file)).toMatchObject({ pid: process.pid, version: '1.0.0' });
      if (taken.held) taken.release();
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
