import { describe, expect, it } from 'vitest';
import headless from '@xterm/headless';
import { StringDecoder } from 'node:string_decoder';
import { OutputLines, type OutputItem } from './lines.ts';

describe('OutputLines', () => {
  it('numbers plain lines, colours and cursor moves taken out', () => {
    const o = new OutputLines();
    expect(o.feed('one\r\n\x1b[31mtwo\x1b[0m\r\n\r\nfour\x1b[K\n')).toEqual([
      { kind: 'output', line: 0, text: 'one' },
      { kind: 'output', line: 1, text: 'two' },
      { kind: 'output', line: 3, text: 'four' },
    ]);
  });

  it('reads sequences split anywhere across chunks', () => {
    const o = new OutputLines(10);
    const all = ['al', 'pha\x1b', '[3', '2mbe', 'ta\x1b]0;ti', 'tle\x07 gamma\r', '\n'].flatMap((c) => o.feed(c));
    expect(all).toEqual([{ kind: 'output', line: 10, text: 'alphabeta gamma' }]);
  });

  it('starts a line over at a lone carriage return, takes back a backspace', () => {
    const o = new OutputLines();
    expect(o.feed('progress 10%\rprogress 100%\nab\bc\n')).toEqual([
      { kind: 'output', line: 0, text: 'progress 100%' },
      { kind: 'output', line: 1, text: 'ac' },
    ]);
  });

  it('reads a marked command, its line and exit status (BEL and ST endings)', () => {
    const o = new OutputLines();
    const out = o.feed('\x1b]133;A\x07$ \x1b]133;B\x07ls /nope\r\n\x1b]133;C\x1b\\ls: cannot access\r\n\x1b]133;D;2\x07\x1b]133;A\x07$ ');
    expect(out).toEqual([
      { kind: 'output', line: 0, text: '$ ls /nope' },
      { kind: 'output', line: 1, text: 'ls: cannot access' },
      { kind: 'command', line: 1, text: 'ls /nope', exitCode: 2 },
    ]);
    expect(o.pending).toBe('$');
  });

  it("takes out an escape sequence's intermediates with its final byte (tput sgr0's ESC ( B), whole or split, and a CSI cut short by an ESC", () => {
    const o = new OutputLines();
    expect(o.feed('\x1b(B\x1b[merror here\n\x1b[\x1b[31mx\x1b#8y\n')).toEqual([
      { kind: 'output', line: 0, text: 'error here' },
      { kind: 'output', line: 1, text: 'xy' },
    ]);
    // A control character after a lone ESC is carried out and the escape goes on, as in xterm: the
    // newline still ends its line, and the b after it is the escape's final byte (xterm: "foo",
    // "   arbaz"); a second ESC begins a sequence.
    expect(new OutputLines().feed('foo\x1b\nbar\x1b\x1b[31mbaz\n')).toEqual([
      { kind: 'output', line: 0, text: 'foo' },
      { kind: 'output', line: 1, text: 'arbaz' },
    ]);
    // xterm: "a", " b" each (the newline carried out inside ESC and inside ESC ( ).
    expect(new OutputLines().feed('a\x1b\n[31mb\r\n')).toEqual([{ kind: 'output', line: 0, text: 'a' }, { kind: 'output', line: 1, text: 'b' }]);
    expect(new OutputLines().feed('a\x1b(\nBb\r\n')).toEqual([{ kind: 'output', line: 0, text: 'a' }, { kind: 'output', line: 1, text: 'b' }]);
    // An ESC inside an OSC or a DCS that is not ST ends it and begins an escape (xterm: "ab" each, then "c").
    expect(new OutputLines().feed('a\x1b]0;t\x1b[31mb\r\n')).toEqual([{ kind: 'output', line: 0, text: 'ab' }]);
    expect(new OutputLines().feed('a\x1bPq\x1b\x18b\r\nc\r\n')).toEqual([{ kind: 'output', line: 0, text: 'ab' }, { kind: 'output', line: 1, text: 'c' }]);
    const split = new OutputLines();
    expect(['\x1b', '(', 'Bfail', 'ed\x1b[1', '\x1b[0mok\n'].flatMap((c) => split.feed(c))).toEqual([{ kind: 'output', line: 0, text: 'failedok' }]);
  });

  it('carries out a newline inside an unfinished CSI, and lets CAN and SUB cancel a CSI, an OSC or a DCS, as xterm does (its lines, so a jump lands on the row xterm drew)', () => {
    // xterm: "a", " b", "c" (the newline inside ESC [ 3 … 1 m moves down, the sequence goes on).
    expect(new OutputLines().feed('a\x1b[3\n1mb\r\nc\r\n')).toEqual([
      { kind: 'output', line: 0, text: 'a' },
      { kind: 'output', line: 1, text: 'b' },
      { kind: 'output', line: 2, text: 'c' },
    ]);
    // xterm: "xy" for each (CAN or SUB ends the sequence; what follows is text again).
    for (const cancel of ['\x18', '\x1a']) {
      expect(new OutputLines().feed(`x\x1b[31${cancel}y\r\n`)).toEqual([{ kind: 'output', line: 0, text: 'xy' }]);
      expect(new OutputLines().feed(`a\x1b]0;title${cancel}b\r\nc\r\n`)).toEqual([{ kind: 'output', line: 0, text: 'ab' }, { kind: 'output', line: 1, text: 'c' }]);
      expect(new OutputLines().feed(`a\x1bP1$r${cancel}b\r\n`)).toEqual([{ kind: 'output', line: 0, text: 'ab' }]);
    }
    // A cancelled OSC 133 marks nothing; split across chunks the same.
    const split = new OutputLines();
    expect(['a\x1b[3', '\n', '1mb\n\x1b]133;B', '\x18ls\n'].flatMap((c) => split.feed(c))).toEqual([
      { kind: 'output', line: 0, text: 'a' },
      { kind: 'output', line: 1, text: 'b' },
      { kind: 'output', line: 2, text: 'ls' },
    ]);
  });

  it('reads C1 controls as xterm does: CSI, OSC, DCS and APC begin their sequence or string anywhere, ST ends it, any other C1 control cancels it, NEL and IND end the line', () => {
    // Each against the rows @xterm/headless 6 draws for the same stream.
    const lines = (s: string) => { const o = new OutputLines(); return [...o.feed(s), ...o.feed('\n')].map((x) => [x.line, x.text]); };
    expect(lines('a\r\n\x9d0;t\r\nx\x07b\r\nc')).toEqual([[0, 'a'], [1, 'b'], [2, 'c']]);
    expect(lines('a\r\n\x90q\r\nz\x9cb\r\nc')).toEqual([[0, 'a'], [1, 'b'], [2, 'c']]);
    expect(lines('a\x9b31mb\r\nc')).toEqual([[0, 'ab'], [1, 'c']]);
    expect(lines('a\x9fapc\r\nq\x9cb\r\n')).toEqual([[0, 'ab']]);
    expect(lines('a\x1b]0;t\x85b\x07c\r\nd')).toEqual([[0, 'a'], [1, 'bc'], [2, 'd']]);
    expect(lines('a\x1b[3\x85b\r\nc')).toEqual([[0, 'a'], [1, 'b'], [2, 'c']]);
    expect(lines('a\x1b\x9b31mb')).toEqual([[0, 'ab']]);
    expect(lines('a\x85b\x84c')).toEqual([[0, 'a'], [1, 'b'], [2, 'c']]);
    expect(lines('a\x1bPq\x85b\x1b\\c')).toEqual([[0, 'a'], [1, 'bc']]);
    expect(lines('a\x1b]0;t\x9cb')).toEqual([[0, 'ab']]);
    expect(lines('a\x1b]0;t\x9bmb')).toEqual([[0, 'ab']]);
    expect(lines('a\x1b]0;t\x9d0;x\x07b')).toEqual([[0, 'ab']]);
    expect(lines('a\x1b[3\x9cb')).toEqual([[0, 'ab']]);
  });

  it('puts each line on the row xterm draws it on, for random streams of controls, sequences and strings', async () => {
    // @xterm/headless 6 given the same stream (ended by ST, CAN and a newline, so nothing stays
    // open): the rows it drew on, against the lines read here. (Not in the pieces: a character
    // from U+00A0 up at a DCS's start, which xterm takes as a parse error and this reader does not.)
    const pieces = ['a', 'b', '\r\n', '\x1b', '[', ']', 'P', '_', '\x07', '\x1b\\', '\x9b', '\x9d', '\x9c', '\x85', '\x90', '\x18', '3', ';', '\x7f', '(', '$', 'm'];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let round = 0; round < 1500; round++) {
      let stream = '';
      for (let i = 0, len = 5 + rand(25); i < len; i++) stream += pieces[rand(pieces.length)];
      stream += '\x1b\\\x18\r\n';
      const t = new headless.Terminal({ cols: 300, rows: 60, allowProposedApi: true, logLevel: 'off' });
      await new Promise<void>((resolve) => t.write(stream, resolve));
      const drawn: number[] = [];
      for (let row = 0; row < 60; row++) if (t.buffer.active.getLine(row)?.translateToString(true).trim()) drawn.push(row);
      t.dispose();
      expect(new OutputLines().feed(stream).map((x) => x.line), JSON.stringify(stream)).toEqual(drawn);
    }
  });

  it('skips DCS and APC strings whole', () => {
    const o = new OutputLines();
    expect(o.feed('a\x1bPq#0;2;0;0;0\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\n')).toEqual([{ kind: 'output', line: 0, text: 'abc' }]);
  });
});

describe('OutputLines: sequences read whole', () => {
  // CSI with parameters and intermediates, OSC ended by BEL, by ST and by an ESC that is not ST
  // (which begins an escape, as in xterm), an OSC longer than the 64 characters kept, a
  // DCS and an APC (an image's payload) skipped whole, and an ESC in a string that is not ST.
  const text = [
    '\x1b[1;32mgreen\x1b[0m \x1b[?25lplain\x1b[38;2;10;20;30m rgb\x1b[0m\r\n',
    '\x1b]0;a window title longer than sixty-four characters, which is kept only in part\x07',
    '\x1b]133;A\x07$ \x1b]133;B\x1b\\make test\x1b]133;C\x1b[31m\r\n',
    'first\x1b]8;;http://example.com\x1b[1mlink\x1b[0m\r\n',
    '\x1bPq#0;2;0;0;0\x1bXinside\x1b\\after dcs \x1b_Gf=100;' + 'QUFB'.repeat(50_000) + '\x1b\\after apc\r\n',
    '\x1b]133;D;3\x07\x1b]133;A\x07$ ',
  ].join('');
  const expected = [
    { kind: 'output', line: 0, text: 'green plain rgb' },
    { kind: 'output', line: 1, text: '$ make test' },
    { kind: 'output', line: 2, text: 'firstlink' },
    { kind: 'output', line: 3, text: 'after dcs after apc' },
    { kind: 'command', line: 1, text: 'make test', exitCode: 3 },
  ];

  it('gives the same lines and commands fed whole or split anywhere (a character at a time, 3, 7, 4 KiB)', () => {
    for (const size of [text.length, 1, 3, 7, 4096]) {
      const o = new OutputLines();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...o.feed(text.slice(i, i + size)));
      expect(out, `chunks of ${size}`).toEqual(expected);
      expect(o.pending).toBe('$');
    }
  });
});

describe('OutputLines.skip', () => {
  it('counts the lines of output it does not read, so the next ones keep their numbers', () => {
    const o = new OutputLines();
    expect(o.feed('one\npart')).toEqual([{ kind: 'output', line: 0, text: 'one' }]);
    o.skip('ial\nx\ny\nhalf\x1b[3m');
    expect(o.feed('after\nnext\n')).toEqual([{ kind: 'output', line: 4, text: 'after' }, { kind: 'output', line: 5, text: 'next' }]);
  });

  it('counts no line for a newline inside an OSC or DCS string, and goes on with a sequence it ends in', () => {
    const o = new OutputLines();
    o.skip('a\n\x1b]0;two\nlines\x07b\n\x1bPq#0\n#1\n\x1b\\c\n\x1b]8;;http://x\n');
    // Three lines ended (a, b, c); the OSC it ends in is still open: its newline is no line's end.
    expect(o.feed('y\x07d\ne\n')).toEqual([{ kind: 'output', line: 3, text: 'd' }, { kind: 'output', line: 4, text: 'e' }]);
  });

  it('counts no line inside a string opened after a control character within its escape (ESC LF ] is an OSC)', () => {
    const o = new OutputLines();
    o.skip('\x1b\n]0;t\nx\n');
    expect(o.line).toBe(1);
    o.skip('q\x1b\r]0;x\n');
    expect(o.feed('still title\x07hello\n')).toEqual([{ kind: 'output', line: 1, text: 'hello' }]);
  });

  it('numbers the lines after a skipped part as reading the whole stream would, for random streams split anywhere', () => {
    let seed = 38;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const wide = ['a', 'bc', ' ', '\n', '\r\n', '\r', '\b', '\t', '\x1b', '[', '3', ';', 'm', ']', '0;', 'P', '_', '\x07', '\\', '\x18', '\x1a', '(', 'B', '\x9b', '\x9d', '\x9c', '\x85', '\x90', 'é'];
    // (And a few pieces often in a row: an escape, a control in it, then a string's introducer.)
    const narrow = ['a', '\n', '\r', '\x1b', ']', 'P', '[', 'm', '\x07', '\\', '\x18'];
    for (let round = 0; round < 4000; round++) {
      const pieces = round % 2 ? wide : narrow;
      let stream = '';
      for (let i = 0, len = 20 + rand(200); i < len; i++) stream += pieces[rand(pieces.length)];
      const a = rand(stream.length);
      const b = a + rand(stream.length - a + 1);
      const whole = new OutputLines();
      const all = [...whole.feed(stream.slice(0, a)), ...whole.feed(stream.slice(a, b)), ...whole.feed(stream.slice(b))];
      const skipped = new OutputLines();
      skipped.feed(stream.slice(0, a));
      skipped.skip(stream.slice(a, b));
      const boundary = skipped.line;
      const after = skipped.feed(stream.slice(b));
      const outputAfter = (items: typeof all) => items.filter((x) => x.kind === 'output' && x.line > boundary);
      expect(outputAfter(after), JSON.stringify(stream)).toEqual(outputAfter(all));
    }
  });
});

describe('OutputLines: the folder each line and command was read in (OSC 7)', () => {
  const cwd = (folder: string, host = '') => `\x1b]7;file://${host}${folder.split('/').map(encodeURIComponent).join('/')}\x07`;
  // A shell with integration: its folder at each prompt, then the command typed, run, and ended.
  const turn = (folder: string, command: string, output: string, status = 0) =>
    `${cwd(folder)}\x1b]133;A\x07$ \x1b]133;B\x07${command}\r\n\x1b]133;C\x07${output}\x1b]133;D;${status}\x07`;
  const stream = turn('/home/dev', 'cd app', '') + turn('/home/dev/app', 'make', 'built\r\n') + turn('/home/dev', 'ls', 'app\r\n') + `${cwd('/home/dev')}\x1b]133;A\x07$ `;
  const folders = (items: OutputItem[]) => items.map((x) => [x.kind, x.text, x.folder]);

  it('gives each line and command the folder the shell reported before it: a command the one it began in', () => {
    const o = new OutputLines();
    expect(o.feed('before any\r\n')).toEqual([{ kind: 'output', line: 0, text: 'before any' }]);
    expect(folders(o.feed(stream))).toEqual([
      ['output', '$ cd app', '/home/dev'],
      ['command', 'cd app', '/home/dev'],
      ['output', '$ make', '/home/dev/app'],
      ['output', 'built', '/home/dev/app'],
      ['command', 'make', '/home/dev/app'],
      ['output', '$ ls', '/home/dev'],
      ['output', 'app', '/home/dev'],
      ['command', 'ls', '/home/dev'],
    ]);
    expect(o.folder).toBe('/home/dev');
  });

  it('reads the same cut anywhere into chunks', () => {
    const whole = new OutputLines().feed(stream);
    for (let at = 1; at < stream.length; at++) {
      const o = new OutputLines();
      expect([...o.feed(stream.slice(0, at)), ...o.feed(stream.slice(at))], `cut at ${at}`).toEqual(whole);
    }
  });

  it('takes a long folder, decoded; not another machine\'s; one too long to keep leaves it unknown; one across skipped output read whole', () => {
    const long = `/home/dev/${'a very long folder name '.repeat(12).trim()}/src`;
    const o = new OutputLines(0, (host) => host === '' || host === 'here');
    o.feed(`${cwd(long, 'here')}x\n`);
    expect(o.folder).toBe(long);
    // A shell over ssh reports the far machine's folders.
    o.feed(`${cwd('/srv/far', 'far.example')}x\n`);
    expect(o.folder).toBe(long);
    // A folder that is not UTF-8 once decoded, or holds a control character, is not one.
    o.feed('\x1b]7;file:///bad%ff\x07\x1b]7;file:///tab%09here\x07x\n');
    expect(o.folder).toBe(long);
    // Reported inside output the index let go (skip): the lines after it were printed there.
    o.skip(`lots\n${cwd('/home/dev/skipped')}more\n`);
    expect(o.folder).toBe('/home/dev/skipped');
    expect(o.feed('after\n')).toEqual([{ kind: 'output', line: expect.any(Number), text: 'after', folder: '/home/dev/skipped' }]);
    // One begun in output let go and ended in what is read (or begun just at its end): read whole.
    o.skip('lots\n\x1b]7;file:///home/de');
    o.feed('v/across\x07x\n');
    expect(o.folder).toBe('/home/dev/across');
    o.skip('lots\n\x1b]');
    o.feed('7;file:///home/dev/at-the-end\x07x\n');
    expect(o.folder).toBe('/home/dev/at-the-end');
    // Too long to keep whole (more than the pane's own reader keeps): the folder is no longer known.
    const items = o.feed(`${cwd(`/x/${'y'.repeat(20_000)}`)}after\n`);
    expect(o.folder).toBeUndefined();
    expect(items).toEqual([{ kind: 'output', line: expect.any(Number), text: 'after' }]);
    // By default this machine is as the pane judges it (isLocalHost): an empty host, localhost, its own name.
    const d = new OutputLines();
    d.feed(`${cwd('/a', 'localhost')}${cwd('/b', 'elsewhere')}`);
    expect(d.folder).toBe('/a');
  });
});

describe('OutputLines.feedTo (the search service\'s entries made as lines are read)', () => {
  // A pane's raw output: wide characters (a surrogate pair among them), bytes that are not UTF-8,
  // CR LF, a progress line redrawn, colours, a link, C1 controls, a backspace and a tab, a line
  // over MAX_LINE, and marked commands with and without a status. Decoded as main/panes/pane.ts
  // does (one StringDecoder over the reads) in batches of any size, so characters, sequences
  // and CR LF are cut anywhere.
  const raw = Buffer.concat([
    Buffer.from('plain\r\nwide 日本語 😀 é\r\n'),
    Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff, 0xc3, 0x28, 0x20, 0xe2, 0x82, 0x20, 0xf0, 0x9f, 0x98, 0x0d, 0x0a]),
    Buffer.from('\x1b[1;31mred\x1b[0m and \x1b]8;;http://x\x07link\x1b]8;;\x07\r\n10%\r50%\r100% done\r\n'),
    Buffer.from('\x1b]133;A\x07$ \x1b]133;B\x07make test\x1b]133;C\x07\r\nout\r\n\x1b]133;D;2\x07'),
    Buffer.from('\x1b]133;B\x1b\\ls\x1b]133;C\x07\n\x1b]133;D\x07'),
    Buffer.from('\u009b31mc1\u009c\u0085ab\bc\td\n'),
    Buffer.from(`${'long '.repeat(2000)}\r\nlast 😀`),
  ]);
  const made = (kind: string, line: number, text: string, exitCode: number | undefined) => ({ made: true, kind, line, text, ...(exitCode !== undefined ? { exitCode } : {}) });

  it('makes what feed gives, in any batches', () => {
    let whole: OutputItem[] | undefined;
    for (const size of [raw.length, 1, 2, 3, 7, 4096, 65536]) {
      const decoder = new StringDecoder('utf8');
      const a = new OutputLines();
      const b = new OutputLines(10);
      const items: OutputItem[] = [];
      const out: ReturnType<typeof made>[] = [];
      for (let i = 0; i < raw.length; i += size) {
        const data = decoder.write(raw.subarray(i, i + size));
        items.push(...a.feed(data));
        expect(b.feedTo(data, out, made)).toBe(out);
      }
      expect(out, `batches of ${size}`).toEqual(items.map((x) => ({ made: true, ...x, line: x.line + 10 })));
      expect(b.pending).toBe(a.pending);
      whole ??= items;
      expect(items, `batches of ${size}`).toEqual(whole);
    }
    expect(whole!.map((x) => [x.kind, x.line, x.text.length > 60 ? `${x.text.slice(0, 10)}… (${x.text.length})` : x.text, (x as { exitCode?: number }).exitCode])).toEqual([
      ['output', 0, 'plain', undefined],
      ['output', 1, 'wide 日本語 😀 é', undefined],
      ['output', 2, 'bad \ufffd\ufffd( \ufffd \ufffd', undefined],
      ['output', 3, 'red and link', undefined],
      ['output', 4, '100% done', undefined],
      ['output', 5, '$ make test', undefined],
      ['output', 6, 'out', undefined],
      ['command', 5, 'make test', 2],
      ['output', 7, 'ls', undefined],
      ['command', 7, 'ls', undefined],
      ['output', 8, 'c1', undefined],
      ['output', 9, 'ac d', undefined],
      ['output', 10, 'long long … (4096)', undefined],
    ]);
    // (What feed gives has no status where there is none: a key no more.)
    expect(Object.keys(whole![9]!)).toEqual(['kind', 'line', 'text']);
  });
});
