import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './argv.ts';

function argv(line: string): string[] {
  const r = parseCommandLine(line);
  if (!r.ok) throw new Error(r.error);
  return r.argv;
}

describe('parseCommandLine', () => {
  it('splits on blanks and drops extra ones', () => {
    expect(argv('node  counter.mjs\t--fast ')).toEqual(['node', 'counter.mjs', '--fast']);
  });
  it('keeps single-quoted text literally, backslashes and $ included', () => {
    expect(argv(`python3 -c 'print("a b") \\n $HOME'`)).toEqual(['python3', '-c', 'print("a b") \\n $HOME']);
  });
  it('lets a backslash escape only " \\ $ ` inside double quotes', () => {
    expect(argv('echo "a \\"b\\" \\$x \\n c"')).toEqual(['echo', 'a "b" $x \\n c']);
  });
  it('joins quoted and bare parts of one word, and keeps empty quoted words', () => {
    expect(argv(`--name="my tick"x '' ""`)).toEqual(['--name=my tickx', '', '']);
  });
  it('escapes a blank outside quotes with a backslash', () => {
    expect(argv('node /tmp/My\\ Ticks/clock.mjs')).toEqual(['node', '/tmp/My Ticks/clock.mjs']);
  });
  it('expands nothing', () => {
    expect(argv('ls ~ $HOME *.ts')).toEqual(['ls', '~', '$HOME', '*.ts']);
  });
  it('refuses an unclosed quote, a trailing backslash and an empty line, saying what to do', () => {
    const single = parseCommandLine("node 'a b");
    expect(single).toEqual({ ok: false, error: expect.stringMatching(/single quote at character 6 is never closed/) });
    expect(parseCommandLine('node "a b')).toEqual({ ok: false, error: expect.stringMatching(/double quote at character 6 is never closed/) });
    expect(parseCommandLine('node a\\')).toEqual({ ok: false, error: expect.stringMatching(/lone backslash/) });
    expect(parseCommandLine('   ')).toEqual({ ok: false, error: expect.stringMatching(/^The command is empty/) });
  });
});
