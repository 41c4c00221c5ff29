/**
 * The search benchmark's text (bench/search.bench.ts), written to files in a folder so 1 GB
 * never sits in memory: what a fleet of agents leaves behind, seeded so every run is the same.
 *
 * - `pane-<n>.out`, PANES panes' raw output as the PTY gives it: a shell prompt with the
 *   OSC 133 marks of the shell integration (A, B, the command typed, C, D;status), CRLF
 *   line ends, colour (SGR), progress lines redrawn with CR, timestamped log lines, test
 *   runners' ticks, compiler errors, `git diff` hunks, code.
 * - `inbound.jsonl`, the agents' events as the agent channel's hooks write them (TDAC
 *   0.2): prompts, replies in Markdown with code, tool runs (Bash, Read, Edit, Grep) with
 *   their input as JSON.
 *
 * Half of a pane's commands are ones it ran before, printing mostly the same lines again
 * (new times and durations, one line in ten new), as agents re-run tests and builds.
 * Words: common English and programming words, and identifiers drawn from a vocabulary of
 * 50,000 made-up words with a Zipf-like spread (so the index meets as many distinct terms
 * as a real fleet's and the text compresses less than real logs, which repeat more).
 */
import fs from 'node:fs';
import path from 'node:path';

const MB = 1024 * 1024;
export const PANES = 8;
/** Of the bytes, this share is the agents' events, the rest pane output. */
const EVENTS_SHARE = 0.3;
/** Of a pane's commands, this share is one it ran before (tests, builds, diffs run again). */
const REPEAT = 0.5;

/** A seeded generator, so every run indexes the same text. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qu', 'de', 'fi', 'go', 'hu', 'ja', 'xe', 'yo', 'bri', 'cla'];
const COMMON = (
  'the a to of and in is it for on with that this be not from by at as are was an or if we can will use now then ' +
  'error warning info debug failed passed test tests file files function return const let await async import export ' +
  'module request response cache user users session config build run running done start started update updated ' +
  'value values type types string number null undefined true false data path line lines read write server client ' +
  'token query index table migration database schema commit branch merge fix add remove change changes check'
).split(' ');

/** The made-up identifiers, most common first. */
export function vocabulary(n: number, rand: () => number): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    let w = '';
    const k = 2 + Math.floor(rand() * 3);
    for (let i = 0; i < k; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    out.add(w);
  }
  return [...out];
}

/** A Zipf-like pick: word i with weight about 1/(i+1). */
function zipf(words: string[], rand: () => number): string {
  return words[Math.min(words.length - 1, Math.floor(Math.exp(rand() * Math.log(words.length + 1))) - 1)]!;
}

export interface Corpus {
  dir: string;
  paneFiles: string[];
  eventsFile: string;
  bytes: number;
  outputBytes: number;
  eventsBytes: number;
  /** Output lines as printed (before the index drops empty ones) and events. */
  outputLines: number;
  events: number;
  words: string[];
}

/** Write about `mb` MB of pane output and agents' events into `dir`. */
/** The corpus's words (`Corpus.words`) without writing it: the first draw of its seeded generator. */
export const corpusWords = (): string[] => vocabulary(50_000, rng(36));

export function writeCorpus(dir: string, mb: number): Corpus {
  const rand = rng(36);
  const words = vocabulary(50_000, rand);
  const w = () => zipf(words, rand);
  const c = () => COMMON[Math.floor(rand() * COMMON.length)]!;
  const phrase = (n: number) => Array.from({ length: n }, () => (rand() < 0.6 ? c() : w())).join(' ');
  const ident = () => `${w()}${rand() < 0.5 ? `_${w()}` : ''}`;
  const file = () => `src/${w()}/${w()}.${rand() < 0.7 ? 'ts' : 'py'}`;
  let clock = Date.parse('2026-11-27T08:00:00Z');

  const paneFiles = Array.from({ length: PANES }, (_, i) => path.join(dir, `pane-${i}.out`));
  const eventsFile = path.join(dir, 'inbound.jsonl');
  const fds = paneFiles.map((f) => fs.openSync(f, 'w'));
  const efd = fs.openSync(eventsFile, 'w');
  const bufs: string[][] = paneFiles.map(() => []);
  const sizes = paneFiles.map(() => 0);
  let ebuf: string[] = [];
  let esize = 0;
  let outputBytes = 0;
  let eventsBytes = 0;
  let outputLines = 0;
  let events = 0;

  const emit = (p: number, s: string): void => {
    bufs[p]!.push(s);
    sizes[p]! += s.length;
    outputBytes += Buffer.byteLength(s);
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) outputLines++;
    if (sizes[p]! >= MB) {
      fs.writeSync(fds[p]!, bufs[p]!.join(''));
      bufs[p] = [];
      sizes[p] = 0;
    }
  };
  const event = (o: Record<string, unknown>): void => {
    const line = `${JSON.stringify({ tdac: '0.2', id: `e${(events++).toString(36)}`, at: new Date(clock).toISOString(), agent: 'claude', ...o })}\n`;
    ebuf.push(line);
    esize += line.length;
    eventsBytes += Buffer.byteLength(line);
    if (esize >= MB) {
      fs.writeSync(efd, ebuf.join(''));
      ebuf = [];
      esize = 0;
    }
  };

  /** What each pane ran lately, to run again: agents re-run their tests and builds over and over. */
  const history: Array<Array<{ cmd: string; lines: string[] }>> = paneFiles.map(() => []);
  /** A line as it is printed again: the same words, a new time and new durations. */
  const again = (line: string): string =>
    line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z/, () => new Date(clock).toISOString()).replace(/\((\d+) ms\)/, () => `(${Math.floor(rand() * 900)} ms)`);

  /** One stretch of a pane's life: a command and what it printed (half the time one it ran before, printing much the same). */
  const stretch = (p: number): void => {
    const past = history[p]!;
    const old = past.length > 0 && rand() < REPEAT ? past[Math.floor(rand() * past.length)]! : undefined;
    const cmd = old?.cmd ?? [`npm test -- ${w()}`, `git diff ${file()}`, `python3 -m ${w()}.${w()} --${w()}`, `tsc -p .`, `cargo build --release`, `rg ${w()} src`][Math.floor(rand() * 6)]!;
    emit(p, `\x1b]133;A\x07\x1b[1;32mdev@box\x1b[0m:\x1b[1;34m~/src/${words[p]}\x1b[0m$ \x1b]133;B\x07${cmd}\x1b]133;C\x07\r\n`);
    const lines: string[] = [];
    const n = old?.lines.length ?? 5 + Math.floor(rand() * 60);
    for (let i = 0; i < n; i++) {
      clock += Math.floor(rand() * 400);
      const r = rand();
      let line: string;
      // A line printed before comes again, some of it changed (one line in ten new).
      if (old && rand() < 0.9) line = again(old.lines[i]!);
      else if (r < 0.35) line = `${new Date(clock).toISOString()} ${rand() < 0.9 ? 'INFO' : 'WARN'} ${phrase(5 + Math.floor(rand() * 8))} ${ident()}=${Math.floor(rand() * 1e6).toString(36)}`;
      else if (r < 0.5) line = `  \x1b[32m✓\x1b[0m ${phrase(4)} \x1b[2m(${Math.floor(rand() * 900)} ms)\x1b[0m`;
      else if (r < 0.6) line = `${file()}:${Math.floor(rand() * 400)}:${Math.floor(rand() * 80)} - \x1b[31merror\x1b[0m TS2322: Type '${ident()}' is not assignable to type '${ident()}'.`;
      else if (r < 0.75) line = `${rand() < 0.5 ? '\x1b[32m+' : '\x1b[31m-'}  const ${ident()} = await ${ident()}(${ident()}, ${Math.floor(rand() * 100)});\x1b[0m`;
      else if (r < 0.85) line = `    at ${ident()} (${file()}:${Math.floor(rand() * 400)}:${Math.floor(rand() * 80)})`;
      else if (r < 0.9) {
        // A progress line redrawn in place, then its last state.
        for (let k = 1; k < 4; k++) emit(p, `\r[${'='.repeat(k * 5)}>${' '.repeat(20 - k * 5)}] ${k * 25}% ${w()}`);
        line = `\r[${'='.repeat(20)}] 100% ${w()} done`;
      } else line = phrase(8 + Math.floor(rand() * 10));
      lines.push(line);
      emit(p, `${line}\r\n`);
    }
    emit(p, `\x1b]133;D;${rand() < 0.85 ? 0 : 1}\x07`);
    if (!old) {
      past.push({ cmd, lines });
      if (past.length > 20) past.shift();
    }
  };

  /** One turn of an agent: a prompt, tool runs, a reply. */
  const turn = (): void => {
    event({ type: 'prompt', text: `${phrase(10 + Math.floor(rand() * 30))}?` });
    const tools = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < tools; i++) {
      const r = rand();
      if (r < 0.4) event({ type: 'tool', tool_name: 'Bash', tool_input: { command: `${['npm test', 'git status', 'rg', 'ls -la'][Math.floor(rand() * 4)]} ${w()}`, description: phrase(6) } });
      else if (r < 0.6) event({ type: 'tool', tool_name: 'Read', tool_input: { file_path: `/home/dev/${file()}` } });
      else if (r < 0.8) event({ type: 'tool', tool_name: 'Grep', tool_input: { pattern: ident(), path: 'src' } });
      else event({ type: 'tool', tool_name: 'Edit', tool_input: { file_path: `/home/dev/${file()}`, old_string: `const ${ident()} = ${ident()}(${ident()});\n${phrase(6)}`, new_string: `const ${ident()} = await ${ident()}(${ident()}, ${ident()});\n// ${phrase(8)}` }, failed: rand() < 0.05 });
    }
    const paras = 1 + Math.floor(rand() * 4);
    const reply: string[] = [];
    for (let i = 0; i < paras; i++) {
      reply.push(`${phrase(20 + Math.floor(rand() * 40))}.`);
      if (rand() < 0.4) reply.push(`\`\`\`ts\nexport async function ${ident()}(${ident()}: string) {\n  return ${ident()}.${ident()}(${ident()});\n}\n\`\`\``);
      if (rand() < 0.3) reply.push(`- ${phrase(6)}\n- ${phrase(7)} in \`${file()}\`\n- ${phrase(5)}`);
    }
    event({ type: 'reply', text: reply.join('\n\n') });
  };

  while (outputBytes + eventsBytes < mb * MB) {
    if (eventsBytes < EVENTS_SHARE * (outputBytes + eventsBytes)) turn();
    else stretch(Math.floor(rand() * PANES));
  }
  paneFiles.forEach((_, p) => {
    fs.writeSync(fds[p]!, bufs[p]!.join(''));
    fs.closeSync(fds[p]!);
  });
  fs.writeSync(efd, ebuf.join(''));
  fs.closeSync(efd);
  return { dir, paneFiles, eventsFile, bytes: outputBytes + eventsBytes, outputBytes, eventsBytes, outputLines, events, words };
}
