import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { BLOCK_LINES, DB_FILE, ENTRY_BLOCK_CHARS, frameSize, FTS_FILE, matchText, pack, Packer, PREFIX_TERMS, SearchIndex, sqlite, storedText, type Entry } from './index.ts';

let state: ReturnType<typeof tempState>;
beforeEach(() => {
  state = tempState('td-search-');
});
afterEach(() => state.cleanup());

const at = Date.parse('2026-12-01T10:00:00Z');
const entry = (e: Partial<Entry>): Entry => ({ kind: 'output', at, paneId: 'pa', session: 's1', text: '', ...e });

describe('matchText', () => {
  it('quotes each word and makes the last a prefix from 3 characters, so no operator of FTS5 comes from the person', () => {
    expect(matchText('cache eviction')).toBe('"cache" "eviction"*');
    expect(matchText('NOT "x" OR why*')).toBe('"not" "x" "or" "why"*');
    // One or two letters last: a whole word.
    expect(matchText('cache ev')).toBe('"cache" "ev"');
    expect(matchText('NOT "x" OR y*')).toBe('"not" "x" "or" "y"');
    // A word with `_` is its parts (the tokenizer cuts there); a last part too short for a prefix is left to the comparison of whole words.
    expect(matchText('Café_key_cache')).toBe('"cafe" "key" "cache"*');
    expect(matchText('cache_ke')).toBe('"cache"');
    expect(matchText('_ke')).toBe('"ke"*');
    expect(matchText('  ;; ')).toBe('');
  });
});

describe('SearchIndex', () => {
  it('finds entries by word and prefix, with filters, newest first, matches marked', () => {
    const ix = new SearchIndex(state.dir);
    ix.add([
      entry({ text: 'running the migration 0042_users', line: 7, folder: '/src/app', agent: 'claude' }),
      entry({ kind: 'command', text: 'npm run migrate', exitCode: 1, line: 9, folder: '/src/app/db', at: at + 1000 }),
      entry({ kind: 'decision', text: 'approve on cache-eviction — keep LRU, the migration can wait', paneId: 'pb', ref: 'cache-eviction', at: at + 2000 }),
    ]);
    expect(ix.search({ query: 'migration' }).map((h) => h.kind)).toEqual(['decision', 'output']);
    expect(ix.search({ query: 'migr' }).map((h) => h.kind)).toEqual(['decision', 'command', 'output']);
    expect(ix.search({ query: '0042_users' })[0]).toMatchObject({ line: 7, agent: 'claude', folder: '/src/app', marked: 'running the migration \u00010042_users\u0002' });
    // A word with `_` is a word whole: a part of it, or its parts apart, are not it.
    expect(ix.search({ query: '0042_us' }).map((h) => h.line)).toEqual([7]);
    expect(ix.search({ query: 'users' })).toEqual([]);
    expect(ix.search({ query: 'users 0042' })).toEqual([]);
    // One or two letters last match a whole word only (the palette asks again as the person types on).
    expect(ix.search({ query: 'mi' })).toEqual([]);
    expect(ix.search({ query: 'on' }).map((h) => h.kind)).toEqual(['decision']);
    expect(ix.search({ query: 'mig' }).map((h) => h.kind)).toEqual(['decision', 'command', 'output']);
    expect(ix.search({ query: 'migr', kind: 'failed' }).map((h) => h.text)).toEqual(['npm run migrate']);
    expect(ix.search({ query: 'migr', folder: '/src/app' }).length).toBe(2);
    expect(ix.search({ query: 'migr', folder: '/src/ap' }).length).toBe(0);
    expect(ix.search({ query: 'migr', pane: 'pb' })[0]!.ref).toBe('cache-eviction');
    expect(ix.search({ query: 'migr', since: '2026-12-01T10:00:01Z' }).length).toBe(2);
    expect(() => ix.search({ query: 'migr', since: 'yesterday-ish' })).toThrow('"yesterday-ish" is not a date: give one like 2026-12-01 or 2026-12-01T09:30');
    // A date alone is its local midnight, not UTC's (everything here is at 10:00:00-10:00:02Z):
    // at UTC+14 2026-12-02 began at 2026-12-01T10:00Z (everything is after it: UTC's midnight would
    // find none), and at UTC-11 2026-12-01 began at 11:00Z (nothing is: UTC's would find all).
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      expect(ix.search({ query: 'migr', since: '2026-12-02' }).length).toBe(3);
      process.env.TZ = 'Pacific/Pago_Pago';
      expect(ix.search({ query: 'migr', since: '2026-12-01' }).length).toBe(0);
      expect(ix.search({ query: 'migr', since: '2026-11-30' }).length).toBe(3);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(() => ix.search({ query: '!!' })).toThrow(/has no word/);
    ix.close();
  });

  it("asks a prefix as the index's words that begin it, one OR another: the same hits, newest first; a prefix of more words, or of none", () => {
    const ix = new SearchIndex(state.dir);
    // Blocks where both words are on lines apart (no hit), and a few lines with both, among test runners' ✓ lines.
    const lines = Array.from({ length: 3 * BLOCK_LINES }, (_, i) =>
      entry({ line: i, text: i % 50 === 7 ? `✓ deploy ${i} migrated` : i % 10 === 1 ? `deploy ${i}` : i % 10 === 2 ? `migration ${i} ✓` : i % 10 === 3 ? `✓ Migrate ${i}` : `plain ${i} ✓` }),
    );
    ix.add(lines);
    ix.add([entry({ kind: 'command', text: 'deploy --migrations', line: 900, at: at + 1000 })]);
    const expected = [900, ...lines.filter((l) => l.line! % 50 === 7).map((l) => l.line!).reverse()];
    expect(ix.search({ query: 'deploy migr', limit: 500 }).map((h) => h.line)).toEqual(expected);
    expect(ix.search({ query: 'deploy migr', limit: 3 }).map((h) => h.line)).toEqual(expected.slice(0, 3));
    expect(ix.search({ query: 'deploy migr', limit: 500 })[1]!.marked).toBe('✓ \u0001deploy\u0002 357 \u0001migrated\u0002');
    expect(ix.search({ query: 'migrate' }).map((h) => h.text)).toEqual(lines.filter((l) => l.line! % 50 === 7 || l.line! % 10 === 3).map((l) => l.text).reverse());
    // No word begins with it: nothing, at once.
    expect(ix.search({ query: 'deploy migx' })).toEqual([]);
    // More words than PREFIX_TERMS begin with it: asked as a prefix, every one found.
    ix.add(Array.from({ length: PREFIX_TERMS + 20 }, (_, i) => entry({ kind: 'command', text: `zq${String(i).padStart(4, '0')} go`, line: 1000 + i, at: at + 2000 + i })));
    expect(ix.search({ query: 'go zq0', limit: 500 }).map((h) => h.line)).toEqual(Array.from({ length: PREFIX_TERMS + 20 }, (_, i) => 1000 + PREFIX_TERMS + 19 - i));
    expect(ix.search({ query: 'zq00', limit: 500 }).length).toBe(100);
    ix.close();
  });

  it('keeps consecutive output lines as blocks, and a hit is the exact line that has every word', () => {
    const ix = new SearchIndex(state.dir);
    const lines = Array.from({ length: 100 }, (_, i) => entry({ line: 500 + i, text: i === 10 ? 'alpha here' : i === 11 ? 'beta there' : i % 20 === 5 ? `Café gamma ${i}` : `plain ${i}` }));
    ix.add(lines);
    expect(ix.count()).toBe(Math.ceil(100 / BLOCK_LINES)); // 100 lines in blocks
    expect(ix.search({ query: 'alpha' }).map((h) => [h.line, h.text, h.marked])).toEqual([[510, 'alpha here', '\u0001alpha\u0002 here']]);
    expect(ix.search({ query: 'beta' }).map((h) => h.line)).toEqual([511]);
    // Words on two lines of one block: no line has both.
    expect(ix.search({ query: 'alpha beta' })).toEqual([]);
    // Every line with the word, newest first, diacritics folded as the tokenizer folds them; the limit counts lines.
    const cafe = ix.search({ query: 'cafe gam' });
    expect(cafe.map((h) => h.line)).toEqual([585, 565, 545, 525, 505]);
    expect(cafe[0]!.marked).toBe('\u0001Café\u0002 \u0001gamma\u0002 85');
    expect(new Set(cafe.map((h) => h.id)).size).toBe(5);
    expect(ix.search({ query: 'gamma', limit: 2 }).map((h) => h.line)).toEqual([585, 565]);
    // A gap in the numbering starts a new block; the next line numbers go on.
    ix.add([entry({ line: 700, text: 'after the gap' })]);
    expect(ix.search({ query: 'gap' })[0]!.line).toBe(700);
    expect(ix.nextLine('pa')).toBe(701);
    expect(ix.prune(1, at + 2 * 86_400_000)).toBe(Math.ceil(100 / BLOCK_LINES) + 1);
    expect(ix.search({ query: 'plain' })).toEqual([]);
    ix.close();
  });

  it("keeps a pane's block going past other panes' lines and a command between, in full blocks, hits listed in the order things came", () => {
    const ix = new SearchIndex(state.dir);
    const batch: Entry[] = [];
    for (let i = 0; i < 2 * BLOCK_LINES; i++) {
      batch.push(entry({ line: i, text: i === 5 ? 'first needle' : i === BLOCK_LINES + 5 ? 'second needle' : `pa line ${i}` }));
      batch.push(entry({ paneId: 'pb', line: i, text: `pb line ${i}` }));
      if (i === 10) batch.push(entry({ kind: 'command', line: 10, text: 'npm run needle', exitCode: 0 }));
    }
    ix.add(batch);
    // Two full blocks a pane and the command: the command did not cut pa's block, nor pb's lines.
    expect(ix.count()).toBe(5);
    // Newest first as they came: pa's second block began after the command, its first before it.
    expect(ix.search({ query: 'needle' }).map((h) => [h.kind, h.line])).toEqual([['output', BLOCK_LINES + 5], ['command', 10], ['output', 5]]);
    expect(ix.search({ query: 'line', pane: 'pb', limit: 3 }).map((h) => h.line)).toEqual([2 * BLOCK_LINES - 1, 2 * BLOCK_LINES - 2, 2 * BLOCK_LINES - 3]);
    // The next transaction's ids go on after this one's.
    ix.add([entry({ kind: 'reply', text: 'a later needle' })]);
    expect(ix.search({ query: 'needle' })[0]!.text).toBe('a later needle');
    ix.close();
  });

  it("says each pane's next line after runs of panes in turn, a pane back after another, lines out of order and a gap; an output line given with newlines is one line", () => {
    const ix = new SearchIndex(state.dir);
    ix.add([
      entry({ line: 0, text: 'pa zero' }),
      entry({ line: 1, text: 'pa one' }),
      entry({ paneId: 'pb', line: 40, text: 'pb forty' }),
      entry({ line: 9, text: 'pa nine' }),
      entry({ line: 3, text: 'pa three, after nine' }),
      entry({ paneId: 'pb', line: 41, text: 'pb forty-one\nits second part\r\nand a third' }),
      entry({ kind: 'command', paneId: 'pc', line: 500, text: 'a command is no output line' }),
      entry({ paneId: 'pc', line: 2, text: 'pc two' }),
    ]);
    expect(ix.nextLine('pa')).toBe(10);
    expect(ix.nextLine('pb')).toBe(42);
    expect(ix.nextLine('pc')).toBe(3);
    // A later transaction never takes a pane's next line back.
    ix.add([entry({ paneId: 'pb', line: 5, text: 'pb five' }), entry({ line: 10, text: 'pa ten' })]);
    expect(ix.nextLine('pb')).toBe(42);
    expect(ix.nextLine('pa')).toBe(11);
    // The line with newlines is kept as one, each newline a space, found and marked as such.
    expect(ix.search({ query: 'second part' }).map((h) => [h.line, h.text])).toEqual([[41, 'pb forty-one its second part\r and a third']]);
    ix.close();
  });

  it('holds a block that is not full across transactions when asked, so lines that come a few at a time make full blocks; a search or a close writes them', () => {
    const ix = new SearchIndex(state.dir);
    for (let i = 0; i < BLOCK_LINES + 8; i += 8) {
      ix.add(Array.from({ length: 8 }, (_, k) => entry({ line: i + k, text: `trickle ${i + k}` })), new Map([['/x/inbound.jsonl', i]]), true);
    }
    // One full block written; the next 8 lines held (not in the table), the cursors and line numbers written.
    expect(ix.count()).toBe(1);
    expect(ix.holding).toBe(true);
    expect(ix.cursor('/x/inbound.jsonl')).toBe(BLOCK_LINES);
    expect(ix.nextLine('pa')).toBe(BLOCK_LINES + 8);
    // A search writes them first: every line is found.
    expect(ix.search({ query: 'trickle', limit: 500 }).map((h) => h.line)).toEqual(Array.from({ length: BLOCK_LINES + 8 }, (_, i) => BLOCK_LINES + 7 - i));
    expect(ix.holding).toBe(false);
    expect(ix.count()).toBe(2);
    // Held again, then closed: the lines are in the database opened anew.
    ix.add([entry({ line: BLOCK_LINES + 8, text: 'last words' })], undefined, true);
    expect(ix.holding).toBe(true);
    ix.close();
    const again = new SearchIndex(state.dir);
    expect(again.search({ query: 'last' }).map((h) => h.line)).toEqual([BLOCK_LINES + 8]);
    again.close();
  });

  it("keeps other entries of one source in one transaction as blocks: each a hit of its own, with its kind, time, line, status and ref, filters looked at entry by entry", () => {
    const ix = new SearchIndex(state.dir);
    const events: Entry[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = (['prompt', 'reply', 'tool', 'command'] as const)[i % 4]!;
      events.push(entry({ kind, agent: 'claude', at: at + i * 1000, ref: kind === 'command' ? undefined : `e${i}`, line: kind === 'command' ? i : undefined, exitCode: kind === 'command' ? (i % 8 === 3 ? 2 : 0) : undefined, text: `${kind} number ${i}${i % 50 === 7 ? ' with the needle' : ''}${i === 9 ? ' and the thread' : ''}` }));
    }
    // Another source between (a decision in another pane): it is a row of its own, the blocks go on.
    events.splice(150, 0, entry({ kind: 'decision', paneId: 'pb', ref: 'card', text: 'approve the needle', at: at + 149_500 }));
    ix.add(events);
    // 300 entries of one source: 128 and 128 and 44 (each block under ENTRY_BLOCK_CHARS), and the decision.
    expect(300 * 30).toBeLessThan(3 * ENTRY_BLOCK_CHARS);
    expect(ix.count()).toBe(4);
    // Newest first by where each block began (as output blocks): the decision came after the second block's first entry.
    const needle = ix.search({ query: 'needle' });
    expect(needle.map((h) => [h.kind, h.text])).toEqual([
      ['reply', 'reply number 257 with the needle'],
      ['decision', 'approve the needle'],
      ['command', 'command number 207 with the needle'],
      ['reply', 'reply number 157 with the needle'],
      ['command', 'command number 107 with the needle'],
      ['reply', 'reply number 57 with the needle'],
      ['command', 'command number 7 with the needle'],
    ]);
    expect(needle[0]).toMatchObject({ kind: 'reply', at: at + 257_000, ref: 'e257', agent: 'claude', marked: 'reply number 257 with the \u0001needle\u0002' });
    expect(needle[4]).toMatchObject({ kind: 'command', line: 107, exitCode: 2, at: at + 107_000 });
    expect(needle[4]!.ref).toBeUndefined();
    expect(new Set(needle.map((h) => h.id)).size).toBe(needle.length);
    // Words in two entries of a block: no entry has both.
    expect(ix.search({ query: 'needle thread' })).toEqual([]);
    expect(ix.search({ query: 'thread' }).map((h) => h.text)).toEqual(['reply number 9 and the thread']);
    // Filters, entry by entry: kind, failed commands, date (a block's newest entry is not enough).
    expect(ix.search({ query: 'needle', kind: 'reply' }).map((h) => h.text)).toEqual(['reply number 257 with the needle', 'reply number 157 with the needle', 'reply number 57 with the needle']);
    expect(ix.search({ query: 'needle', kind: 'failed' }).map((h) => h.line)).toEqual([107]);
    expect(ix.search({ query: 'number', kind: 'failed', limit: 500 }).length).toBe(38);
    expect(ix.search({ query: 'needle', kind: 'output' })).toEqual([]);
    expect(ix.search({ query: 'needle', since: new Date(at + 200_000).toISOString() }).map((h) => h.at)).toEqual([at + 257_000, at + 207_000]);
    expect(ix.search({ query: 'needle', pane: 'pb' }).map((h) => h.kind)).toEqual(['decision']);
    expect(ix.search({ query: 'number', limit: 3 }).map((h) => h.text)).toEqual(['command number 299', 'tool number 298', 'reply number 297']);
    // Kept deflated: no entry's text in the file as it is.
    ix.close();
    for (const f of fs.readdirSync(state.dir).filter((n) => n.startsWith(DB_FILE))) expect(fs.readFileSync(path.join(state.dir, f)).includes('reply number 207 with the needle')).toBe(false);
    // A block goes when its newest entry is older than the kept days (the first block and the decision).
    const again = new SearchIndex(state.dir);
    expect(again.prune(1, at + 86_400_000 + 200_000)).toBe(2);
    expect(again.search({ query: 'needle' }).map((h) => h.text)).toEqual(['reply number 257 with the needle', 'command number 207 with the needle', 'reply number 157 with the needle']);
    again.close();
  });

  it("keeps a long entry's text deflated, found and marked as it was, no secret in it", () => {
    const ix = new SearchIndex(state.dir);
    const reply = `The cache now evicts by LRU. ${'Measured on the staging box, the hit rate held. '.repeat(14)}Set ANTHROPIC_API_KEY=sk-ant-api03-Qw7Er5Ty3Ui1Op9As and rerun.`;
    ix.add([entry({ kind: 'reply', text: reply, agent: 'claude', ref: 'e1' })]);
    const [hit] = ix.search({ query: 'evicts' });
    expect(hit).toMatchObject({ kind: 'reply', ref: 'e1', text: reply.replace('sk-ant-api03-Qw7Er5Ty3Ui1Op9As', '[redacted]') });
    expect(hit!.marked.startsWith('The cache now \u0001evicts\u0002 by LRU.')).toBe(true);
    ix.close();
    for (const f of fs.readdirSync(state.dir).filter((n) => n.startsWith(DB_FILE))) {
      const bytes = fs.readFileSync(path.join(state.dir, f));
      expect(bytes.includes('Qw7Er5Ty3Ui1Op9As')).toBe(false);
      // Kept deflated: the repeated sentence is not in the file fourteen times over.
      expect(bytes.includes('the hit rate held. Measured on the staging box')).toBe(false);
    }
  });

  it('stores no secret: the token is redacted before it is written', () => {
    const ix = new SearchIndex(state.dir);
    ix.add([entry({ text: 'export ANTHROPIC_API_KEY=sk-ant-api03-Zq8vTn4LkW9mXr2PbY7c and go' })]);
    expect(ix.search({ query: 'export' })[0]!.text).toBe('export ANTHROPIC_API_KEY=[redacted] and go');
    ix.close();
    for (const f of fs.readdirSync(state.dir).filter((n) => n.startsWith(DB_FILE))) {
      expect(fs.readFileSync(path.join(state.dir, f)).includes('Zq8vTn4LkW9mXr2PbY7c')).toBe(false);
    }
  });

  it("stores no line of a private key a pane printed, across adds, held blocks and another pane's lines; an agent's reply with a key, a command", () => {
    const ix = new SearchIndex(state.dir);
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString().trim();
    const body = pem.split('\n').slice(1, -1);
    // Output before the key fills the pane's first block but 3 lines, so the key straddles two blocks.
    const lines = [...Array.from({ length: BLOCK_LINES - 3 }, (_, i) => `before ${i}`), pem.split('\n')[0]!, ...body, pem.split('\n').at(-1)!, 'after the key'];
    // Output comes a few lines an add (held across them), another pane's lines between.
    for (let i = 0; i < lines.length; i += 5) {
      ix.add([
        ...lines.slice(i, i + 5).map((text, k) => entry({ line: i + k, text })),
        entry({ paneId: 'pb', line: i, text: `other pane ${i}` }),
      ], undefined, true);
    }
    ix.add([
      entry({ kind: 'reply', agent: 'claude', ref: 'e1', text: `Here is the key:\n${pem}\nkeep it safe` }),
      entry({ kind: 'command', line: 400, text: `cat > k.pem <<EOF\n${pem}\nEOF` }),
    ]);
    ix.flush();
    expect(ix.search({ query: 'after', pane: 'pa' }).map((h) => [h.line, h.text])).toEqual([[lines.length - 1, 'after the key']]);
    expect(ix.search({ query: 'before', pane: 'pa', limit: 500 })).toHaveLength(BLOCK_LINES - 3);
    expect(ix.search({ query: 'other', pane: 'pb', limit: 500 })).toHaveLength(Math.ceil(lines.length / 5));
    expect(ix.search({ query: 'safe' })[0]!.text).toBe('Here is the key:\n[redacted]\n' + `${'[redacted]\n'.repeat(body.length + 1)}keep it safe`);
    expect(ix.outputLines('pa', BLOCK_LINES - 3, BLOCK_LINES + body.length - 2).every((l) => l.text === '[redacted]')).toBe(true);
    expect(ix.search({ query: 'EOF', kind: 'command' })[0]!.text).toBe(`cat > k.pem <<EOF\n${'[redacted]\n'.repeat(body.length + 2)}EOF`);
    ix.close();
    for (const f of fs.readdirSync(state.dir).filter((n) => n.startsWith(DB_FILE))) {
      const bytes = fs.readFileSync(path.join(state.dir, f));
      for (const l of body) expect(bytes.includes(l), l).toBe(false);
    }
  });

  it('keeps cursors with the entries, and prunes entries older than the kept days', () => {
    const ix = new SearchIndex(state.dir);
    ix.add([entry({ text: 'old news', at: at - 10 * 86_400_000 }), entry({ text: 'fresh news', line: 4 })], new Map([['/x/actions.jsonl', 120]]));
    expect(ix.cursor('/x/actions.jsonl')).toBe(120);
    expect(ix.nextLine('pa')).toBe(5);
    expect(ix.prune(7, at)).toBe(1);
    expect(ix.search({ query: 'news' }).map((h) => h.text)).toEqual(['fresh news']);
    ix.close();
  });

  it('moves an index of an older schema aside (another layout of its rows) and starts a new one, never reading it', () => {
    const { DatabaseSync } = sqlite();
    const old = new DatabaseSync(path.join(state.dir, DB_FILE));
    old.exec("CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT); INSERT INTO meta VALUES ('schema', '6'); CREATE TABLE docs(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind INTEGER NOT NULL, src INTEGER NOT NULL, line INTEGER, exit INTEGER, ref TEXT, text TEXT NOT NULL); INSERT INTO docs VALUES (1, 0, 3, 1, NULL, NULL, NULL, 'an old reply')");
    old.close();
    const ix = new SearchIndex(state.dir);
    expect(ix.movedAside?.why).toBe('it was made by another version (schema 6, this one reads 9)');
    expect(fs.existsSync(ix.movedAside!.to)).toBe(true);
    expect(ix.count()).toBe(0);
    ix.add([entry({ kind: 'reply', text: 'a new reply' }), entry({ kind: 'prompt', text: 'a new prompt' })]);
    expect(ix.search({ query: 'new' }).map((h) => h.kind)).toEqual(['prompt', 'reply']);
    ix.close();
  });

  it('writes a flood\'s words on its worker thread, found as soon as added, and mends the words of rows a kill left without them (and words of rows gone)', () => {
    // 3,000 lines of ~80 characters (one transaction of 240 KB: the worker writes its words) and a trickle after it.
    const flood = Array.from({ length: 3000 }, (_, i) => entry({ line: i, text: `line ${i} of the flood zqxflood${i % 7} ${'padding '.repeat(8)}` }));
    let ix = new SearchIndex(state.dir);
    ix.add(flood, new Map([['/x/inbound.jsonl', 1]]), true);
    ix.add([entry({ kind: 'reply', text: 'a zqxtrickle reply' })]);
    expect(ix.search({ query: 'zqxflood3', limit: 500 }).length).toBe(Math.ceil((3000 - 3) / 7));
    expect(ix.search({ query: 'zqxtrickle' }).map((h) => h.kind)).toEqual(['reply']);
    ix.close();
    // A kill after the rows were committed and before their words were: the words' file has none of them.
    // (A stray word's row, as a kill in a prune's middle can leave: a rowid no row has.)
    for (const ext of ['', '-wal', '-shm']) fs.rmSync(path.join(state.dir, FTS_FILE + ext), { force: true });
    const { DatabaseSync } = sqlite();
    const words = new DatabaseSync(path.join(state.dir, FTS_FILE));
    words.exec(`CREATE VIRTUAL TABLE fts USING fts5(text, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 2", detail='none'); INSERT INTO fts(rowid, text) VALUES (999999, 'zqxghost')`);
    words.close();
    ix = new SearchIndex(state.dir);
    expect(ix.movedAside).toBeUndefined();
    expect(ix.search({ query: 'zqxflood3', limit: 500 }).length).toBe(Math.ceil((3000 - 3) / 7));
    expect(ix.search({ query: 'zqxtrickle' }).map((h) => h.kind)).toEqual(['reply']);
    ix.close();
    const check = new DatabaseSync(path.join(state.dir, FTS_FILE), { readOnly: true });
    expect(check.prepare('SELECT count(*) AS n FROM fts_docsize WHERE id = 999999').get()).toEqual({ n: 0 });
    check.close();
  });

  it("finds a flood's words (written by the worker) as a trickle's: a word said many times, words apart by any whitespace, with diacritics or beyond ASCII, whole and by prefix; pruned, they are gone", () => {
    // `t` tags each word: `tx` in a trickle (written with the rows), `fx` in a flood after it (a transaction of 64 K characters or more: the worker).
    const lines = (t: string): string[] => [
      `${t}rep `.repeat(300).trimEnd(),
      `alpha\u00a0${t}nbsp\u2028${t}lsep\u3000${t}ideo\ufeff${t}bom\u2009${t}thin\u000b${t}vtab end`,
      `Café ${t}Crème déjà vu`,
      `日本語 ${t}キー ✓ 🚀 ${t}emoji`,
    ];
    const padding = Array.from({ length: 400 }, (_, i) => `padding line ${i} ${'filler '.repeat(28)}`);
    const old = at - 10 * 86_400_000;
    const flood = [...lines('fx'), ...padding, ...lines('fx')].map((text, i) => entry({ line: i, text, at: old }));
    const ix = new SearchIndex(state.dir);
    ix.add([...lines('tx').map((text, i) => entry({ paneId: 'pb', line: i, text })), entry({ kind: 'reply', paneId: 'pb', text: `a reply: ${lines('tx').join('\n')}` })]);
    ix.add([...flood, entry({ kind: 'reply', text: `a reply: ${lines('fx').join('\n')}`, at: old })]);
    const found = (query: string): string[] => ix.search({ query, limit: 500 }).map((h) => `${h.kind} ${h.paneId} ${h.line ?? '-'}`);
    for (const t of ['fx', 'tx']) {
      const pane = t === 'fx' ? 'pa' : 'pb';
      const last = t === 'fx' ? 404 : 0;
      const hits = (line: number): string[] => [`reply ${pane} -`, ...(t === 'fx' ? [`output ${pane} ${last + line}`] : []), `output ${pane} ${line}`];
      expect(found(`${t}rep`)).toEqual(hits(0));
      expect(ix.search({ query: `${t}rep`, pane }).at(-1)!.marked).toBe(`\u0001${t}rep\u0002 `.repeat(300).trimEnd());
      for (const w of ['nbsp', 'lsep', 'ideo', 'bom', 'thin', 'vtab']) expect(found(`${t}${w}`)).toEqual(hits(1));
      expect(found(`alpha ${t}vtab`)).toEqual(hits(1));
      expect(found(`${t}creme deja`)).toEqual(hits(2));
      expect(found(`${t}Crème déjà`)).toEqual(hits(2));
      expect(found(`${t}cre`)).toEqual(hits(2));
      expect(found(`${t}キー`)).toEqual(hits(3));
      expect(found(`日本語 ${t}emo`)).toEqual(hits(3));
      expect(found(`${t}emoj`)).toEqual(hits(3));
    }
    // The flood's rows pruned: its words go with them (the worker's words deleted as the trickle's would be).
    expect(ix.prune(7, at)).toBeGreaterThan(0);
    expect(found('fxrep')).toEqual([]);
    expect(found('fxnbsp')).toEqual([]);
    expect(found('fxcre')).toEqual([]);
    expect(found('txrep')).toEqual(['reply pb -', 'output pb 0']);
    ix.close();
  });

  it("gives FTS5 each transaction's rows in id order, though blocks are written as they fill (one segment a transaction, not one at each lower id): the same hits", () => {
    /** FTS5's segments in the words' file (each has its leaf pages listed in fts_idx). */
    const segments = (): number => {
      const db = new (sqlite().DatabaseSync)(path.join(state.dir, FTS_FILE), { readOnly: true });
      const n = Number((db.prepare('SELECT count(DISTINCT segid) AS n FROM fts_idx').get() as { n: number }).n);
      db.close();
      return n;
    };
    // Pane pa prints two lines for each of pb's: pa's blocks fill twice as fast, so each of pb's
    // blocks (opened before pa's last two) is written after rows with higher ids.
    const lines = (from: number, n: number, words: string): Entry[] => {
      const out: Entry[] = [];
      for (let i = from; i < from + n; i++) {
        out.push(entry({ paneId: 'pa', line: 2 * i, text: `${words} a${2 * i}x ${'padding '.repeat(10)}` }));
        out.push(entry({ paneId: 'pa', line: 2 * i + 1, text: `${words} a${2 * i + 1}x ${'padding '.repeat(10)}` }));
        out.push(entry({ paneId: 'pb', line: i, text: `${words} b${i}x ${'padding '.repeat(10)}` }));
      }
      return out;
    };
    const ix = new SearchIndex(state.dir);
    // A trickle (written with the rows): fewer than 64 K characters.
    ix.add(lines(0, 3 * BLOCK_LINES, 'zqxtrickle').slice(0, 600));
    expect(segments()).toBe(1);
    // A flood (the worker): ~2,300 blocks' worth of lines in one transaction of its words.
    ix.add(lines(200, 8 * BLOCK_LINES, 'zqxflood'));
    expect(ix.search({ query: 'zqxflood', limit: 500 }).length).toBe(500);
    expect(segments()).toBe(2);
    for (const [q, pane, line] of [['a2001', 'pa', 2001], ['b200', 'pb', 200], ['b1223', 'pb', 1223], ['a2447', 'pa', 2447], ['b99', 'pb', 99], ['a100', 'pa', 100]] as const) {
      expect(ix.search({ query: `${q}x` }).map((h) => `${h.paneId} ${h.line}`)).toEqual([`${pane} ${line}`]);
    }
    ix.close();
  });

  /** An index of a 6,000-line flood whose words' file then has one page (0-based) overwritten with junk. */
  function brokenWords(page: (pages: number) => number, automerge?: number): number {
    const ix = new SearchIndex(state.dir);
    ix.add(Array.from({ length: 6000 }, (_, i) => entry({ line: i, text: `line ${i} of the flood zqxflood${i % 20} w${i} ${'padding '.repeat(8)}` })), new Map(), false);
    const found = ix.search({ query: 'zqxflood3', limit: 500 }).length;
    expect(found).toBe(300);
    ix.close();
    const file = path.join(state.dir, FTS_FILE);
    if (automerge !== undefined) {
      // As an older version left it (FTS5's default): the next open sets it, which reads FTS5's structure.
      const db = new (sqlite().DatabaseSync)(file);
      db.exec(`INSERT INTO fts(fts, rank) VALUES ('automerge', ${automerge})`);
      db.close();
    }
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(16384, 0xa5), 0, 16384, page(fs.statSync(file).size / 16384) * 16384);
    fs.closeSync(fd);
    return found;
  }

  function mendAll(ix: SearchIndex): number {
    let slices = 0;
    while (ix.mendWords(8)) slices++;
    return slices;
  }

  it('opens without reading its whole words\' file, finds a broken one on a thread of its own, and writes the words again from the rows\' texts, losing nothing', async () => {
    const found = brokenWords((pages) => pages - 1);
    const ix = new SearchIndex(state.dir);
    expect(ix.movedAside).toBeUndefined();
    expect(ix.wordsRenewed).toBeUndefined();
    const why = await ix.checkWords();
    expect(why).toMatch(/malformed|quick_check said/);
    const renewed = ix.renewWords(why!);
    expect(fs.existsSync(renewed.to)).toBe(true);
    expect(ix.search({ query: 'zqxflood3', limit: 500 }).length).toBe(0);
    // New text meanwhile is found at once, and not written twice by the mending.
    ix.add([entry({ kind: 'reply', text: 'a zqxwhilemending reply' })]);
    expect(mendAll(ix)).toBeGreaterThan(1);
    expect(ix.search({ query: 'zqxflood3', limit: 500 }).length).toBe(found);
    expect(ix.search({ query: 'zqxwhilemending' }).map((h) => h.kind)).toEqual(['reply']);
    expect(await ix.checkWords()).toBeUndefined();
    ix.close();
  });

  it.each([
    // Page 4 (0-based 3) is the root of FTS5's table of row sizes, which opening reads (mend).
    { what: 'where opening reads it again from the rows at open (the rows kept)', page: 3, automerge: undefined },
    // Page 2 (0-based 1) holds FTS5's structure, which setting automerge reads (a file an older version left at FTS5's default).
    { what: 'where setting automerge at open reads its structure (one an older version left at 4)', page: 1, automerge: 4 },
  ])('makes a words\' file broken $what, renewing the words from the rows', async ({ page, automerge }) => {
    const found = brokenWords(() => page, automerge);
    const ix = new SearchIndex(state.dir);
    expect(ix.movedAside).toBeUndefined();
    expect(ix.wordsRenewed?.why).toMatch(/^its words \(search\.db-fts\): .*malformed/);
    mendAll(ix);
    expect(ix.search({ query: 'zqxflood3', limit: 500 }).length).toBe(found);
    expect(await ix.checkWords()).toBeUndefined();
    ix.close();
  });

  it('reads rows packed by an older version (raw deflate) as its own (zstd where Node has it)', () => {
    const ix = new SearchIndex(state.dir);
    const lines = Array.from({ length: 300 }, (_, i) => entry({ text: `zqxpacked line ${i} ${'of some length '.repeat(8)}`, line: i }));
    ix.add([...lines, entry({ kind: 'reply', text: `zqxpacked reply ${'long enough to be packed '.repeat(40)}` }), entry({ kind: 'command', text: 'zqxpacked a', line: 1 }), entry({ kind: 'command', text: 'zqxpacked b', line: 2 })]);
    const before = ix.search({ query: 'zqxpacked', limit: 500 });
    expect(before.length).toBe(303);
    ix.close();
    const db = new (sqlite().DatabaseSync)(path.join(state.dir, DB_FILE));
    const packed = (db.prepare('SELECT id, text FROM bodies').all() as Array<{ id: number; text: string | Uint8Array }>).filter((r) => r.text instanceof Uint8Array);
    expect(packed.length).toBe(4); // three blocks of lines, a block of the reply and the commands
    const zstd = typeof zlib.zstdCompressSync === 'function';
    for (const r of packed) expect((r.text as Uint8Array)[0] === 0x28).toBe(zstd);
    // As an older version wrote them.
    for (const r of packed) db.prepare('UPDATE bodies SET text = ? WHERE id = ?').run(zlib.deflateRawSync(storedText(r.text), { level: 1 }), r.id);
    db.close();
    const again = new SearchIndex(state.dir);
    expect(again.movedAside).toBeUndefined();
    expect(again.search({ query: 'zqxpacked', limit: 500 })).toEqual(before);
    expect(again.outputLines('pa', 140, 141).map((l) => l.text)).toEqual([lines[140]!.text, lines[141]!.text]);
    again.close();
  });

  it("sets FTS5's automerge to 16 and hashsize to 4 MiB in the words' file, also in one set otherwise before (FTS5's defaults, 4 and 1 MiB)", () => {
    const ix = new SearchIndex(state.dir);
    ix.close();
    const setting = (k: string): unknown => {
      const db = new (sqlite().DatabaseSync)(path.join(state.dir, FTS_FILE));
      const v = (db.prepare('SELECT v FROM fts_config WHERE k = ?').get(k) as { v?: unknown } | undefined)?.v;
      db.close();
      return v;
    };
    expect(setting('automerge')).toBe(16);
    expect(setting('hashsize')).toBe(4 * 1024 * 1024);
    const db = new (sqlite().DatabaseSync)(path.join(state.dir, FTS_FILE));
    db.exec("INSERT INTO fts(fts, rank) VALUES ('automerge', 4)");
    db.exec("INSERT INTO fts(fts, rank) VALUES ('hashsize', 1048576)");
    db.close();
    expect(setting('automerge')).toBe(4);
    expect(setting('hashsize')).toBe(1024 * 1024);
    new SearchIndex(state.dir).close();
    expect(setting('automerge')).toBe(16);
    expect(setting('hashsize')).toBe(4 * 1024 * 1024);
  });

  it('packs texts one after another through one kept zstd context, at level 1 each: each read back as it was (short, empty, 1 MB, beyond ASCII, a lone surrogate as UTF-8 has it)', () => {
    const packer = new Packer();
    const texts = [
      'one line',
      '',
      Array.from({ length: 128 }, (_, i) => `line ${i}: café 日本語 ✓ 🙂 ${'x'.repeat(i)}`).join('\n'),
      'a lone \ud800 surrogate',
      'z'.repeat(1024 * 1024),
      `${'🙂'.repeat(70_000)}`,
      'short again',
    ];
    const zstd = typeof zlib.zstdCompressSync === 'function';
    // Where Node has zstd, the kept context is used (not `pack` behind it), and each text's bytes are in the one buffer it keeps.
    expect(packer.kept).toBe(zstd);
    if (zstd) expect(packer.packed('one').buffer).toBe(packer.packed('two').buffer);
    for (const round of [0, 1]) {
      for (const t of texts) {
        // (A view of the packer's buffer, written over by the next call: copied.)
        const bytes = Uint8Array.from(packer.packed(t));
        expect(bytes[0] === 0x28 && bytes[1] === 0xb5, `round ${round}`).toBe(zstd);
        expect(storedText(bytes)).toBe(Buffer.from(t).toString('utf8'));
        // At zstd's level 1 as `pack` (the level kept from text to text: level 3 is ~10% smaller on text).
        expect(Math.abs(bytes.length - pack(t).length)).toBeLessThanOrEqual(pack(t).length / 50 + 16);
      }
    }
    // The text's UTF-8 as zstd was given it (what the FTS5 worker binds): a copy, not written over by the next text.
    if (zstd) {
      const utf8 = texts.map((t) => {
        packer.packed(t);
        return packer.textBytes()!;
      });
      texts.forEach((t, i) => expect(Buffer.from(utf8[i]!).equals(Buffer.from(t)), `text ${i}`).toBe(true));
    } else expect(packer.textBytes()).toBeUndefined();
    expect(packer.kept).toBe(zstd);
    // Closed: packed as `pack` packs, a stream a text.
    packer.close();
    expect(packer.kept).toBe(false);
    expect(storedText(Uint8Array.from(packer.packed(texts[2]!)))).toBe(texts[2]);
    // (Packed apart: its UTF-8 was made inside zlib, none to give.)
    expect(packer.textBytes()).toBeUndefined();
  });

  it('reads stored texts back through one kept zstd context: each as it was, whatever came before (a corrupt frame, a cut one), and the frame says its length', () => {
    if (typeof zlib.zstdCompressSync !== 'function') return expect(storedText(pack('no zstd here'))).toBe('no zstd here');
    const packer = new Packer();
    const texts = ['one line', '', 'x', `${'café 日本語 ✓ 🙂 '.repeat(300)}`, 'z'.repeat(1024 * 1024), 'a lone \ud800 surrogate', 'short again'];
    const good = texts.flatMap((t) => [Uint8Array.from(pack(t)), Uint8Array.from(packer.packed(t))]);
    good.forEach((f, i) => expect(frameSize(f), `frame ${i}`).toBe(Buffer.byteLength(texts[i >> 1]!)));
    expect(frameSize(Uint8Array.from([1, 2, 3, 4, 5, 6]))).toBe(-1);
    const corrupt = Uint8Array.from(pack('hello world '.repeat(100)));
    corrupt[corrupt.length - 3]! ^= 0xff;
    const cut = Uint8Array.from(pack('hello world '.repeat(100))).subarray(0, 20);
    // (A frame that says it is longer than it is: its content ends before.)
    const long = Uint8Array.from(pack('hello world '.repeat(100)));
    long[6] = long[6]! + 1;
    for (const round of [0, 1, 2]) {
      for (const [i, f] of good.entries()) expect(storedText(f), `round ${round}, frame ${i}`).toBe(Buffer.from(texts[i >> 1]!).toString('utf8'));
      // As zstd's own: a frame that cannot be read says so (the index's rows are then read as before).
      expect(() => storedText(corrupt)).toThrow(/corrupt/i);
      expect(() => storedText(cut)).toThrow();
      expect(() => storedText(long)).toThrow();
    }
  });

  it('reads stored texts back without a collection of the whole heap every few thousand blocks (zstdDecompressSync made a context and a buffer a call, counted by V8 as memory outside its heap)', async () => {
    if (typeof zlib.zstdCompressSync !== 'function') return;
    const frames = Array.from({ length: 20 }, (_, i) => Uint8Array.from(pack(`line ${i} of a block `.repeat(500))));
    for (let i = 0; i < 100; i++) storedText(frames[i % 20]!);
    await new Promise((r) => setTimeout(r, 50));
    let major = 0;
    const seen = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) major++;
    });
    seen.observe({ entryTypes: ['gc'] });
    // 40,000 blocks of ~10 KB (a query reads ~100): before, 3 collections of the old generation here (6 in a plain process), for V8's "external memory pressure".
    for (let i = 0; i < 40_000; i++) storedText(frames[i % 20]!);
    await new Promise((r) => setTimeout(r, 50));
    seen.disconnect();
    expect(major).toBeLessThanOrEqual(1);
  });

  /** A flood's output lines from `from` (one pane's, in order), with words beyond ASCII and a word of its own each. */
  const floodLines = (from: number, n: number, paneId = 'pa'): Entry[] =>
    Array.from({ length: n }, (_, i) => entry({ paneId, line: from + i, text: `line ${from + i} zqk${from + i}q of the flood, café déjà 日本語 🙂 ${'word '.repeat((from + i) % 17)}` }));

  it("keeps a flood's words when adds that fail (rolled back after the worker packed their texts) come between others: their row ids are given again, and no worker transaction fails", async () => {
    const ix = new SearchIndex(state.dir);
    let next = 0;
    let failed = 0;
    for (let round = 0; round < 120; round++) {
      if (round % 5 === 4) {
        // Its last block fails in the rows' writing, after the texts before it were posted and packed.
        const bad = floodLines(next, 1500);
        bad[1408]!.at = Number.NaN;
        try {
          ix.add(bad);
        } catch {
          failed++;
        }
      }
      ix.add(floodLines(next, 1500), new Map([['/x/out', next + 1500]]));
      next += 1500;
      // (A turn of the event loop: the worker takes messages and texts in its own order meanwhile.)
      await new Promise((r) => setImmediate(r));
    }
    expect(failed).toBe(24);
    // (Not asserted that the worker packed: on a busy machine it may fall behind for the whole run,
    // and then the main thread packs every text; on a free one it packs, and this failed without the mend.)
    for (const line of [0, 1499, 6000, 90_000, next - 1]) expect(ix.search({ query: `zqk${line}q` }).map((h) => h.line), `line ${line}`).toEqual([line]);
    // A rolled-back add's forgetting never took a later transaction's kept words (they were kept by row id: "the words of row N were not kept").
    expect(ix.workerFailures()).toBe(0);
    ix.close();
  });

  it("keeps each packed text's words under its own ticket when the worker, held in FTS5, comes to a slot given again (over 1,024 texts taken back meanwhile)", async () => {
    const ix = new SearchIndex(state.dir);
    const at = Date.now();
    // Another connection holds the words' file's write lock for 1.5 s: the worker's next FTS5 transaction waits on it.
    const holder = spawn(process.execPath, ['-e', `const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(${JSON.stringify(path.join(state.dir, FTS_FILE))}); d.exec('BEGIN IMMEDIATE'); console.log('locked'); setTimeout(() => { d.exec('COMMIT'); d.close(); }, 1500);`]);
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    // (Over FTS_BATCH_CHARS, 4 M characters: posted to the worker at once, which then waits on the lock.)
    ix.add(Array.from({ length: 36_000 }, (_, i) => entry({ paneId: 'big', line: i, at, text: `line ${i} ${'word '.repeat(24)}` })));
    // Adds of 1,000 one-line panes while it waits: their texts posted, taken back and packed here, their slots given again.
    const t0 = Date.now();
    let line = 0;
    while (Date.now() - t0 < 2500) {
      ix.add(Array.from({ length: 1000 }, (_, p) => entry({ paneId: `p${p}`, line, at, text: `x${line}y${p}` })));
      line++;
    }
    await new Promise<void>((resolve) => (holder.exitCode !== null ? resolve() : holder.once('exit', () => resolve())));
    expect(ix.search({ query: `x${line - 1}y999` }).map((h) => h.paneId)).toEqual(['p999']);
    expect(ix.search({ query: 'x0y0' }).length).toBe(1);
    expect(ix.workerFailures()).toBe(0);
    ix.close();
  });

  it("packs a flood's texts on the FTS5 worker while it runs: each row reads back exactly, the same frame as the main thread's, its words found; a transaction rolled back leaves none of its words", async () => {
    const zstd = typeof zlib.zstdCompressSync === 'function';
    const ix = new SearchIndex(state.dir);
    // The first flood starts the worker (packed here); the next are packed on it while it keeps up.
    // Between adds the worker is let catch up (a query waits until it has committed everything),
    // for up to 30 s: on a busy machine it falls behind, and then the main thread packs every text.
    let next = 0;
    const until = Date.now() + 30_000;
    for (let round = 0; round < 2 || (zstd && ix.workerPacked() === 0 && Date.now() < until); round++) {
      if (round > 0) {
        ix.search({ query: 'zqcatchupq' });
        await new Promise((r) => setTimeout(r, 1));
      }
      ix.add([...floodLines(next, 3000), entry({ kind: 'prompt', text: `a long prompt zqp${round}q ${'café '.repeat(200)}` }), ...Array.from({ length: 40 }, (_, i) => entry({ kind: 'tool', text: `tool run zqt${round}x${i}q` }))], new Map([['/x/out', round]]));
      next += 3000;
    }
    // (Without zstd the worker packs nothing: rows packed on this thread with deflate, as before.)
    if (zstd) expect(ix.workerPacked()).toBeGreaterThan(0);
    const packer = new Packer();
    const db = new (sqlite().DatabaseSync)(path.join(state.dir, DB_FILE), { readOnly: true });
    const rows = db.prepare('SELECT d.line, b.text FROM docs d JOIN bodies b ON b.id = d.body WHERE d.kind = 0 ORDER BY d.line').all() as Array<{ line: number; text: Uint8Array }>;
    // (Blocks of up to BLOCK_LINES lines, the last of each add shorter: no block is held.)
    expect(Number(rows[0]!.line)).toBe(0);
    rows.forEach((r, i) => {
      const line = Number(r.line);
      const end = i + 1 < rows.length ? Number(rows[i + 1]!.line) : next;
      expect(end - line).toBeGreaterThan(0);
      expect(end - line).toBeLessThanOrEqual(BLOCK_LINES);
      const text = floodLines(line, end - line).map((e) => e.text).join('\n');
      expect(storedText(r.text)).toBe(text);
      // The same zstd frame as the main thread's kept context makes (level 1).
      if (zstd) expect(Buffer.from(r.text).equals(Buffer.from(packer.packed(text))), `the block at line ${line}`).toBe(true);
    });
    db.close();
    packer.close();
    for (const l of [0, 4321, next - 1]) expect(ix.search({ query: `zqk${l}q` }).map((h) => h.line)).toEqual([l]);
    expect(ix.search({ query: 'zqp1q' }).map((h) => h.kind)).toEqual(['prompt']);
    expect(ix.search({ query: 'zqt1x39q' }).map((h) => h.kind)).toEqual(['tool']);
    // A transaction that fails after its texts were posted (a time that is not a number: the row refused) is rolled back whole,
    // and the worker forgets the words it kept of it: the ids are given again, to other lines.
    const bad = floodLines(next, 3000).map((e) => ({ ...e, text: `${e.text} zqbad` }));
    bad[BLOCK_LINES * 10]!.at = Number.NaN;
    expect(() => ix.add(bad)).toThrow();
    ix.add(floodLines(next, 3000));
    expect(ix.search({ query: 'zqbad' })).toEqual([]);
    expect(ix.search({ query: `zqk${next + 5}q` }).map((h) => h.line)).toEqual([next + 5]);
    expect(ix.search({ query: 'zqk4321q' }).map((h) => h.line)).toEqual([4321]);
    ix.close();
  }, 90_000);

  it('loses nothing committed to a kill -9 while a flood is indexed with its texts packed on the worker: every row reads back as written, found, and the cursor says where to read on', async () => {
    // A process that floods one pane's lines, 1,500 an add with their cursor, until killed.
    const script = path.join(state.dir, 'flood.ts');
    fs.writeFileSync(script, `import { SearchIndex } from ${JSON.stringify(path.resolve(import.meta.dirname, 'index.ts'))};
const ix = new SearchIndex(process.argv[2]);
const floodLines = ${floodLines.toString().replace(/entry\(/, '((e) => ({ kind: "output", at: 1, paneId: "pa", session: "s1", text: "", ...e }))(')};
for (let line = 0; line < 3_000_000; line += 1500) {
  // (The worker let catch up between adds, as a query does: on a busy machine it falls behind, and then this thread packs every text.)
  if (line > 0) ix.search({ query: 'zqcatchupq' });
  ix.add(floodLines(line, 1500), new Map([['/x/out', line + 1500]]));
  process.stdout.write(ix.workerPacked() > 0 ? 'packed ' + (line + 1500) + '\\n' : 'added\\n');
}
`);
    const dir = path.join(state.dir, 'ix');
    fs.mkdirSync(dir);
    const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let out = '';
    const zstd = typeof zlib.zstdCompressSync === 'function';
    // Killed once the worker has packed texts in a few transactions (or, without zstd, after a few).
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if ((out.match(zstd ? /packed/g : /added/g) ?? []).length >= 5) resolve();
      });
      void exited.then(() => resolve());
    });
    child.kill('SIGKILL');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    const ix = new SearchIndex(dir);
    const cursor = ix.cursor('/x/out');
    expect(cursor).toBeGreaterThanOrEqual(5 * 1500);
    const lines = ix.outputLines('pa', 0, 10_000_000);
    expect(lines.length).toBe(cursor);
    const want = floodLines(0, cursor);
    lines.forEach((l, i) => {
      if (l.line !== i || l.text !== want[i]!.text) expect(l).toEqual({ line: i, text: want[i]!.text });
    });
    // The words of rows committed before the kill (the worker's last ones given again at the open).
    for (const l of [0, cursor - 1]) expect(ix.search({ query: `zqk${l}q` }).map((h) => h.line)).toEqual([l]);
    expect(ix.search({ query: `zqk${cursor}q` })).toEqual([]);
    ix.close();
  }, 60_000);

  it('moves a corrupt database aside and starts a new one', () => {
    fs.writeFileSync(path.join(state.dir, DB_FILE), 'this is not a database, it only has a name like one'.repeat(200));
    const ix = new SearchIndex(state.dir);
    expect(ix.movedAside?.to).toMatch(/search\.db\.corrupt-\d{8}T\d{6}Z$/);
    expect(fs.existsSync(ix.movedAside!.to)).toBe(true);
    ix.add([entry({ text: 'after the rebuild' })]);
    expect(ix.count()).toBe(1);
    ix.close();
  });
});
