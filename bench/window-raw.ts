/**
 * The window benchmark's baselines, in a bare Node process: node-pty alone, with
 * nothing of ours in the path.
 */
import fs from 'node:fs';
import path from 'node:path';
import nodePty from 'node-pty';

const PTY_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' };

/** A file of `bytes` printable ASCII text lines (varied, so nothing compresses into runs). */
export function textFile(dir: string, name: string, bytes: number): string {
  const file = path.join(dir, name);
  const block: string[] = [];
  let size = 0;
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=+()[]{}';
  for (let i = 0; size < 1024 * 1024; i++) {
    let line = `${String(i).padStart(6, '0')} `;
    for (let j = 0; j < 40 + (i % 60); j++) line += alphabet[(i * 7 + j * 13) % alphabet.length];
    line += '\n';
    block.push(line);
    size += line.length;
  }
  return writeRepeated(file, Buffer.from(block.join('')), bytes);
}

/** `chunk` written again and again up to `bytes` (cut at a line's end, so the file ends with one). */
function writeRepeated(file: string, chunk: Buffer, bytes: number): string {
  const fd = fs.openSync(file, 'w');
  try {
    let written = 0;
    while (written < bytes) {
      const n = Math.min(chunk.length, bytes - written);
      const end = n === chunk.length ? n : chunk.lastIndexOf(10, n - 1) + 1;
      if (end <= 0) break;
      fs.writeSync(fd, chunk, 0, end);
      written += end;
      if (end < n) break;
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

/**
 * A file of `bytes` of coloured source-like text (what a highlighter or a build prints):
 * indented lines with 256-colour keywords, yellow strings and dim comments, each reset.
 */
export function colouredFile(dir: string, name: string, bytes: number): string {
  const kw = ['const', 'function', 'return', 'if', 'else', 'for', 'import', 'export'];
  const block: string[] = [];
  let size = 0;
  for (let i = 0; size < 1024 * 1024; i++) {
    const line = `${' '.repeat((i % 5) * 2)}\x1b[38;5;${(i % 200) + 16}m${kw[i % kw.length]}\x1b[0m name${i} = \x1b[33m"value ${i} of something longer"\x1b[0m; \x1b[2m// comment ${'x'.repeat(i % 40)}\x1b[0m\n`;
    block.push(line);
    size += line.length;
  }
  return writeRepeated(path.join(dir, name), Buffer.from(block.join('')), bytes);
}

/** `cat file` in a bare node-pty: bytes per second, counting until the process exits. */
export function rawCat(file: string): Promise<{ bytes: number; seconds: number; bytesPerSecond: number }> {
  return new Promise((resolve) => {
    let chars = 0;
    const t0 = performance.now();
    const p = nodePty.spawn('cat', [file], { name: 'xterm-256color', cols: 120, rows: 30, cwd: path.dirname(file), env: PTY_ENV });
    p.onData((d) => {
      chars += d.length;
    });
    p.onExit(() => {
      const seconds = (performance.now() - t0) / 1000;
      // node-pty may drop a short tail at exit; the file's size is what passed.
      const bytes = Math.max(chars, fs.statSync(file).size);
      resolve({ bytes, seconds, bytesPerSecond: bytes / seconds });
    });
  });
}

/**
 * Keystroke round trip in a bare node-pty: write one character to `cat` (the line
 * discipline echoes it), time until it comes back. `count` round trips after a warm-up.
 */
export async function rawEcho(count: number, warmup = 20): Promise<number[]> {
  const p = nodePty.spawn('cat', [], { name: 'xterm-256color', cols: 120, rows: 30, cwd: process.cwd(), env: PTY_ENV });
  let waiting: (() => void) | undefined;
  let want = '';
  let seen = '';
  p.onData((d) => {
    seen += d;
    if (waiting && seen.includes(want)) {
      const w = waiting;
      waiting = undefined;
      w();
    }
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < count + warmup; i++) {
      // No newline: cat's line (a few hundred characters) stays under the 4095 a line may hold.
      const ch = String.fromCharCode(97 + (i % 26));
      want = ch;
      seen = '';
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        waiting = resolve;
        p.write(ch);
      });
      if (i >= warmup) times.push(performance.now() - t0);
    }
  } finally {
    p.kill();
  }
  return times;
}

/** Resident memory (VmRSS) of a process, in bytes; undefined once it is gone. */
/** A process's private memory (pages no other process maps: /proc/PID/smaps_rollup), in bytes. */
export function privateMemory(pid: number): number | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? 0);
    return (kb('Private_Clean') + kb('Private_Dirty')) * 1024;
  } catch {
    return undefined;
  }
}

export function rss(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
