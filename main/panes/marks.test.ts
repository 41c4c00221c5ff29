import { describe, expect, it } from 'vitest';
import { MAX_BODY, MarkScanner, NO_PROMPT, ShellMarks, atPrompt, parseOsc, promptStep, type Mark, type PromptState } from './marks.ts';

const ESC = '\x1b';
const BEL = '\x07';
const osc = (body: string, st = BEL): string => `${ESC}]${body}${st}`;

/** A prompt cycle as bash prints it with the integration: D, OSC 7, A, prompt, B, echo, C, output. */
const CYCLE =
  `${osc('133;D;0')}${osc('7;file://box/home/ada/src')}${ESC}[?2004h${osc('133;A')}ada$ ${osc('133;B')}ls\r\n${ESC}[?2004l\r${osc('133;C')}` +
  `${ESC}[01;34mdocs${ESC}[0m  README.md\r\n${osc('133;D;2', `${ESC}\\`)}`;

const CYCLE_MARKS: Mark[] = [
  { kind: 'done', exitCode: 0 },
  { kind: 'cwd', host: 'box', path: '/home/ada/src' },
  { kind: 'prompt' },
  { kind: 'input' },
  { kind: 'command' },
  { kind: 'done', exitCode: 2 },
];

function scanAll(chunks: string[]): Mark[] {
  const s = new MarkScanner();
  return chunks.flatMap((c) => [...s.scan(c)]);
}

describe('MarkScanner', () => {
  it('finds OSC 133 and OSC 7 with BEL and ST terminators among other sequences', () => {
    expect(scanAll([CYCLE])).toEqual(CYCLE_MARKS);
  });

  it('finds the same marks however the output is cut, at every position and in single characters', () => {
    for (let cut = 0; cut <= CYCLE.length; cut++) {
      expect(scanAll([CYCLE.slice(0, cut), CYCLE.slice(cut)]), `cut at ${cut}`).toEqual(CYCLE_MARKS);
    }
    expect(scanAll([...CYCLE])).toEqual(CYCLE_MARKS);
  });

  it('returns nothing, and keeps nothing, for output without OSC', () => {
    const s = new MarkScanner();
    const none = s.scan(`${ESC}[31mred${ESC}[0m plain text\r\n`);
    expect(none).toEqual([]);
    expect(s.scan('more')).toBe(none); // the shared empty answer: no allocation per chunk
  });

  it('ignores OSCs that are not marks (titles, hyperlinks, clipboard) and unknown 133 letters', () => {
    expect(scanAll([`${osc('0;title')}${osc('8;;https://x.example')}link${osc('8;;')}${osc('52;c;aGVsbG8=')}${osc('133;P;k=v')}${osc('133;A;cl=m')}`])).toEqual([{ kind: 'prompt' }]);
  });

  it('skips an OSC longer than MAX_BODY (an inline image) without keeping it, and reads the marks after it', () => {
    const big = 'x'.repeat(MAX_BODY * 3);
    const s = new MarkScanner();
    const chunks = [`${ESC}]1337;File=inline=1:`, big.slice(0, MAX_BODY), big.slice(MAX_BODY), `${BEL}${osc('133;C')}`];
    expect(chunks.flatMap((c) => [...s.scan(c)])).toEqual([{ kind: 'command' }]);
    // a 7; body over the limit is not a folder either
    expect(scanAll([`${ESC}]7;file://h/${'a'.repeat(MAX_BODY)}${BEL}`])).toEqual([]);
  });

  it('drops an OSC cut short by a new sequence, CAN or SUB, and reads the sequence that cut it', () => {
    expect(scanAll([`${ESC}]133;A${ESC}]133;B${BEL}`])).toEqual([{ kind: 'input' }]);
    expect(scanAll([`${ESC}]133;A${ESC}[0m${osc('133;C')}`])).toEqual([{ kind: 'command' }]);
    expect(scanAll([`${ESC}]133;A\x18${osc('133;C')}`, `${ESC}]133;D;1\x1a`])).toEqual([{ kind: 'command' }]);
    // an ESC that ends one chunk inside an OSC, and a new OSC in the next
    expect(scanAll([`${ESC}]133;A${ESC}`, `]133;B${BEL}`])).toEqual([{ kind: 'input' }]);
  });
});

describe('parseOsc', () => {
  it('reads D with and without a status', () => {
    expect(parseOsc('133;D')).toEqual({ kind: 'done' });
    expect(parseOsc('133;D;130')).toEqual({ kind: 'done', exitCode: 130 });
    expect(parseOsc('133;D;-1')).toEqual({ kind: 'done', exitCode: -1 });
    expect(parseOsc('133;D;oops')).toEqual({ kind: 'done' });
  });

  it('decodes OSC 7 paths and refuses what is not a clean absolute file URL', () => {
    expect(parseOsc('7;file://box/tmp/dir%20%C3%A9%3Bx')).toEqual({ kind: 'cwd', host: 'box', path: '/tmp/dir é;x' });
    expect(parseOsc('7;file:///srv')).toEqual({ kind: 'cwd', host: '', path: '/srv' });
    expect(parseOsc('7;file://box')).toBeUndefined();
    expect(parseOsc('7;https://box/tmp')).toBeUndefined();
    expect(parseOsc('7;file://box/tmp/%FF')).toBeUndefined();
    expect(parseOsc('7;file://box/tmp/a%0Ab')).toBeUndefined();
  });
});

describe('promptStep', () => {
  const run = (marks: Mark[], times: number[]): PromptState =>
    marks.reduce((s, m, i) => promptStep(s, m, times[i] ?? 0), NO_PROMPT);

  it('says nothing until a prompt mark is seen', () => {
    expect(atPrompt(NO_PROMPT)).toBe(false);
    expect(atPrompt(run([{ kind: 'command' }], []))).toBe(false);
    expect(run([{ kind: 'command' }, { kind: 'done', exitCode: 0 }], []).integrated).toBe(false);
  });

  it('follows prompt, command and done, timing each command that ends with a status', () => {
    let s = run([{ kind: 'prompt' }, { kind: 'input' }], [0, 0]);
    expect(atPrompt(s)).toBe(true);
    s = promptStep(s, { kind: 'command' }, 1000);
    expect(atPrompt(s)).toBe(false);
    expect(s.phase).toBe('command');
    s = promptStep(s, { kind: 'done', exitCode: 3 }, 3500);
    expect(atPrompt(s)).toBe(true);
    expect(s.lastCommand).toEqual({ exitCode: 3, durationMs: 2500, endedAt: 3500 });
    expect(s.startedAt).toBeUndefined();
  });

  it('keeps the last command when a prompt comes without a command (an empty line, Ctrl-C)', () => {
    let s = run([{ kind: 'prompt' }, { kind: 'command' }, { kind: 'done', exitCode: 0 }], [0, 10, 20]);
    const last = s.lastCommand;
    s = promptStep(s, { kind: 'done' }, 30);
    s = promptStep(s, { kind: 'prompt' }, 30);
    expect(s.lastCommand).toBe(last);
    expect(atPrompt(s)).toBe(true);
  });

  it('treats a prompt after a command with no D as the command ended, with no status', () => {
    const s = run([{ kind: 'prompt' }, { kind: 'command' }, { kind: 'prompt' }], [0, 10, 20]);
    expect(atPrompt(s)).toBe(true);
    expect(s.lastCommand).toBeUndefined();
  });

  it('returns the same state for a repeated prompt mark (a prompt redrawn)', () => {
    const s = run([{ kind: 'prompt' }], [0]);
    expect(promptStep(s, { kind: 'prompt' }, 5)).toBe(s);
    expect(promptStep(s, { kind: 'cwd', host: '', path: '/' }, 5)).toBe(s);
  });
});

describe('ShellMarks', () => {
  it('reports a command that ended, a prompt, and a folder on this machine only', () => {
    const m = new ShellMarks((host) => host === 'here');
    expect(m.read('plain output', 0)).toBeUndefined();
    expect(m.read(`${osc('133;A')}$ ${osc('133;B')}`, 0)).toEqual({ prompt: true });
    expect(m.read(`${osc('133;C')}out\r\n`, 100)).toEqual({ prompt: false });
    expect(m.read(`${osc('133;D;4')}${osc('7;file://here/srv')}${osc('133;A')}`, 350)).toEqual({
      prompt: true, cwd: '/srv', lastCommand: { exitCode: 4, durationMs: 250, endedAt: 350 },
    });
    expect(m.cwd).toBe('/srv');
    // the same folder again, and a remote one: no change
    expect(m.read(`${osc('7;file://here/srv')}${osc('7;file://elsewhere/home')}`, 400)).toEqual({ prompt: false });
    expect(m.cwd).toBe('/srv');
    expect(atPrompt(m.state)).toBe(true);
  });
});
