/**
 * The shell integration's mark scanner (main/panes/marks.ts) runs on every byte a pane
 * prints. Its cost per MB of output, beside the headless screen's parse of the same
 * output (the core's other per-byte work, measured in the same run), for:
 *  - plain output: coloured `ls`-like lines (SGR, no OSC), in 4 KiB chunks as node-pty
 *    hands them over: the scanner's cost is one indexOf per chunk;
 *  - marks: a full bash prompt cycle (D, OSC 7, A, B, C: five marks) every 300 bytes,
 *    thousands of times more than a person's commands make (marks come once per command
 *    typed at a prompt, never from a program's own output); its figure is the cost per mark.
 * Goal: plain output under 1% of the screen's parse.
 *
 * What the figures showed (2 shared cores): plain output 0.4 ms/MB against the screen's
 * 43 ms/MB (0.9%); a mark costs ~0.4 µs (a regex per OSC body was 0.6 µs: the OSC's end
 * is now found with a char loop, and A/B/C/D-without-status are shared frozen objects).
 */
import headless from '@xterm/headless';
import { MarkScanner } from '../main/panes/marks.ts';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.TD_BENCH_MARKS_MB) || 32;
const CHUNK = 4096;

function chunks(unit: string, mb: number): string[] {
  const text = unit.repeat(Math.ceil((mb * MB) / unit.length));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out;
}

function scanMs(data: string[]): { ms: number; marks: number } {
  const s = new MarkScanner();
  let marks = 0;
  const t = performance.now();
  for (const c of data) marks += s.scan(c).length;
  return { ms: performance.now() - t, marks };
}

async function screenMs(data: string[]): Promise<number> {
  const screen = new headless.Terminal({ cols: 120, rows: 30, scrollback: 10_000, allowProposedApi: true });
  const t = performance.now();
  for (const c of data) screen.write(c);
  await new Promise<void>((r) => screen.write('', r));
  const ms = performance.now() - t;
  screen.dispose();
  return ms;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const plain = chunks('\x1b[01;34mdocs\x1b[0m  \x1b[01;32mbuild.sh\x1b[0m  README.md  package.json  src/main.ts  test/x.test.ts\r\n', SIZE_MB);
  const cycle = '\x1b]133;D;0\x07\x1b]7;file://box/home/ada/src/project\x07\x1b]133;A\x07ada@box:~/src/project$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07';
  const busy = chunks(cycle + 'x'.repeat(300 - cycle.length - 2) + '\r\n', SIZE_MB);
  const lines: string[] = [];
  for (const [name, data] of [['plain output', plain], ['marks', busy]] as const) {
    // Warm up both, then take the better of three runs of each.
    scanMs(data.slice(0, 512));
    await screenMs(data.slice(0, 512));
    let scan = Infinity;
    let marks = 0;
    let parse = Infinity;
    for (let i = 0; i < 3; i++) {
      const r = scanMs(data);
      scan = Math.min(scan, r.ms);
      marks = r.marks;
      parse = Math.min(parse, await screenMs(data));
    }
    const ratio = scan / parse;
    const perMark = marks > 0 ? `, ${((scan * 1000) / marks).toFixed(2)} µs a mark` : '';
    const verdict = marks > 0 ? '' : ` (goal under 1%) ${ratio < 0.01 ? 'ok' : 'OVER'}`;
    lines.push(
      `${name}: scanner ${(scan / SIZE_MB).toFixed(3)} ms/MB (${marks} marks${perMark}), headless screen ${(parse / SIZE_MB).toFixed(1)} ms/MB: ` +
      `ratio ${(ratio * 100).toFixed(2)}%${verdict}`,
    );
  }
  return { name: `marks (shell integration scanner, ${SIZE_MB} MB in ${CHUNK} B chunks)`, lines };
}
