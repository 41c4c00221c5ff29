/**
 * The search index (issue 36): one SQLite database in the state folder (`search.db`, WAL),
 * through Node's built-in `node:sqlite`, whose FTS5 table indexes every entry's text. An
 * entry is one line of a pane's output, a command with its exit status and folder, an
 * agent's prompt, reply or tool run, a surface, an action on one (the decision log) or a
 * Tick call. Entries come in batches, each batch one transaction with the file offsets it
 * read up to (`cursors`), so a service killed at any moment comes back with a database that
 * holds exactly the batches committed and reads its files on from where those ended.
 *
 * Opened, its rows' database is checked (`PRAGMA quick_check`); one that fails it, or does not
 * open, is moved aside (`search.db.corrupt-<time>`) and a new one starts empty, its files read
 * again from the start by the feeder (main/search/service.ts). The words' file (FTS_FILE, most of
 * a quick_check's time: 0.5 s of 0.6 for 240 MB) is checked on a thread of its own after the
 * start (`checkWords`); found corrupt, it alone is moved aside and made again from the rows'
 * texts, a slice at a time (`renewWords`, `mendWords`): nothing is lost. Text that looks like a
 * secret is redacted before it is stored (main/search/secrets.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import type { DatabaseSync as Db, StatementSync } from 'node:sqlite';
import { SEARCH_PREFIX_MIN, type SearchHit, type SearchKind, type SearchQuery } from '../../preload/contract.ts';
import { KeyBlocks, redact } from './secrets.ts';
import { nodeTooOld } from '../node-version.ts';
import { sinceTime } from '../../common/since.ts';

export const DB_FILE = 'search.db';
/** The FTS5 table's own database, beside DB_FILE: written by a worker thread while text floods in (FtsWorker). */
export const FTS_FILE = `${DB_FILE}-fts`;
const SCHEMA_VERSION = 9;
/** The FTS5 table, in the words' file (attached as `f`): only which rows hold a word (detail=none), no copy of the text. */
const FTS_TABLE = `CREATE VIRTUAL TABLE IF NOT EXISTS f.fts USING fts5(text, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 2", detail='none')`;
/**
 * FTS5's `automerge`: segments of one level merged into one of the next once this many are
 * there (FTS5's default 4). A flood's words make a segment a transaction; each merge reads and
 * writes them all again, a quarter of the worker's CPU with 4. With 16 a word's rows are
 * rewritten half as often (log16 rather than log4 of the segments), for the worker ~12% less
 * CPU at 1 GB; a query reads up to 15 segments a level rather than 3 (the bench's mix's p99
 * the same; a prefix gathered a few ms more). A setting of the words' file (`fts_config`),
 * set at open when it differs.
 */
const AUTOMERGE = 16;
/** A transaction with this many characters for FTS5 or more starts the worker (a flood, a rebuild); fewer are written with the rows. */
const WORKER_MIN_CHARS = 64 * 1024;
/** The worker ends once it was given nothing for this long (a thread costs ~15 MB at rest). */
const WORKER_IDLE_MS = 10_000;
/**
 * Transactions given to the worker and not yet committed by it, at most (then `add` waits for
 * it): 2 of FTS_BATCH_CHARS, the same 8 M characters of words as 8 of 1 M before (8 since the
 * worker packs texts too, PACK_BYTES: with 4 M characters the main thread waited ~1.7 s a GB
 * for FTS5's merges, with 8 M ~1.2 s). A query in a flood waits for these and for the batch not
 * yet posted (up to 12 M characters of words in all, against ~9 M with 8 of 1 M: ~60 ms for each
 * 4 M on the bench's text, more while FTS5 merges).
 */
const IN_FLIGHT = 2;
/**
 * The worker's transactions hold the words of this many characters of text or more (rows'
 * transactions gathered; a query, closing or the idle timer gives it fewer): FTS5 writes a
 * segment, and SQLite a commit, a transaction, and for a slice's few blocks that was half of
 * FTS5's CPU (the bench's text: ~20 MB/s a CPU second in transactions of 2 blocks, ~40 in ones
 * of 1 MB). 4 M with FTS5's `hashsize` 4 MiB (HASH_SIZE): a quarter of the segments, each
 * sorted and written once and merged again log16 of them times, for FTS5 ~8% less CPU at 1 GB
 * (15.1-15.2 against 16.5-17.0 s for the 1 GB bench's words on one thread, in turns).
 */
const FTS_BATCH_CHARS = 4 * 1024 * 1024;
/**
 * FTS5's `hashsize` in the words' file: the bytes of pending words FTS5 holds before it writes
 * them out as a segment (its default 1 MiB). 1 MiB cut a 4 M-character transaction into
 * segments of ~1 M again (4 M transactions alone: the same CPU as 1 M); with 4 MiB a
 * transaction is one segment. A setting of the words' file (`fts_config`), set at open where it
 * differs; its memory (~4 MiB of words and FTS5's hash around them) is held only while a
 * transaction is being written.
 */
const HASH_SIZE = 4 * 1024 * 1024;
/**
 * While the worker runs, it writes the rows' database's WAL back too (a PASSIVE checkpoint on a
 * connection of its own, once it has committed the words of this many characters since the
 * last: every ~2 MB of rows in a flood; a trickle's few words rarely, left to the autocheckpoint): a checkpoint copies the WAL's pages into the file and syncs both, and on
 * the thread that writes the rows (its autocheckpoint) it blocked that thread, the slower of the
 * two in a flood, ~0.7 s a GB. A PASSIVE checkpoint waits for no one; once it has written the
 * whole WAL back, the rows' next transaction starts the WAL again from its beginning. The rows'
 * connection keeps its autocheckpoint (4000 pages) for the rest: without the worker, or should
 * the WAL grow anyway. A checkpoint is never needed for a commit to last (WAL, synchronous
 * NORMAL: a kill loses no committed transaction either way).
 */
const MAIN_CHECKPOINT_CHARS = 4 * 1024 * 1024;
/** How long a wait for the worker may last before the index says it stopped. */
const WORKER_WAIT_MS = 60_000;

/** The start of a worker thread's script: its port and data, and `node:sqlite` loaded without Node 22's ExperimentalWarning. */
const WORKER_PRELUDE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const emit = process.emitWarning;
process.emitWarning = (w, ...rest) => { if (!/SQLite/i.test(typeof w === 'string' ? w : w.message)) emit.call(process, w, ...rest); };
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
process.emitWarning = emit;
`;
/**
 * Texts packed on the FTS5 worker while a flood lasts (`FtsWorker.postPack`): the UTF-8 of a
 * transaction's texts and their frames go through two shared buffers of this size (a text that
 * does not fit is packed on the main thread, as without the worker), with at most PACK_SLOTS
 * texts a transaction. Each slot is SLOT_INTS integers: its state, where its UTF-8 is and how
 * long, where its frame goes and its room (then its length, -1: not packed), the row's id
 * whose words the worker keeps from it (0: none), and its ticket (the worker keeps the words by
 * it: a slot is given again every PACK_SLOTS texts, and a worker held up in FTS5 may come to a
 * slot after the main thread has taken its text back and given it again).
 */
const PACK_BYTES = 4 * 1024 * 1024;
const PACK_SLOTS = 1024;
const SLOT_INTS = 7;
/** A slot's states: posted by the main thread, being packed by the worker, packed, taken back by the main thread (packed there). */
const POSTED = 1;
const PACKING = 2;
const PACKED = 3;
const TAKEN = 4;
/** The worker's FTS5 transactions not yet committed from which the main thread packs its texts itself (the worker is behind). */
const PACK_BEHIND = 2;
/** Texts waiting before a sleeping worker is woken to pack them (not one a text: each wake costs both threads a futex call and the worker a turn of its loop). */
const WAKE_TEXTS = 4;

/**
 * The worker thread that writes the FTS5 table (plain JavaScript, run with `eval`: nothing to
 * bundle). Each message is one transaction of [rowid, text, rowid, text …] (a text a number:
 * the ticket of the UTF-8 the worker kept when it packed that row's text); once committed, its sequence number
 * goes in state[0] (state[1] set if it failed), which `SearchIndex` waits on with Atomics
 * before a query. 'close' closes its connection and sets state[2]. Between messages, and
 * between a transaction's rows, it packs the texts the main thread posts in the shared slots
 * (`servePacks`; zstd level 1 through one kept context, as `Packer`): its loop waits on
 * pack.ctl[1], which the main thread bumps with each message and text, rather than in Node's
 * event loop, so a text is taken up within one FTS5 row's insert.
 */
const FTS_WORKER = `${WORKER_PRELUDE}
const { receiveMessageOnPort } = process.getBuiltinModule('node:worker_threads');
const zlib = process.getBuiltinModule('node:zlib');
const inIdOrder = ${inIdOrder.toString()};
const state = new Int32Array(workerData.state);
const busy = new Float64Array(workerData.busy);
const db = new DatabaseSync(workerData.file);
// (Its pages' size and WAL mode were set when the file was made: SearchIndex makes it.)
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 10000; PRAGMA wal_autocheckpoint = 4000;');
const insert = db.prepare('INSERT INTO fts(rowid, text) VALUES (?, ?)');
// The rows' database (search.db) on a connection of its own: its WAL written back from here
// (a PASSIVE checkpoint every MAIN_CHECKPOINT_CHARS characters), not on the thread that writes
// the rows (see MAIN_CHECKPOINT_CHARS).
let rowsDb;
let sinceCheckpoint = 0;
const checkpointRows = () => {
  sinceCheckpoint = 0;
  try {
    if (!rowsDb) {
      rowsDb = new DatabaseSync(workerData.main);
      rowsDb.exec('PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 0;');
    }
    rowsDb.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // (Busy, or gone: the rows' thread's own autocheckpoint still bounds the WAL.)
  }
};
// Packing (see PACK_BYTES): the slots, the texts' UTF-8, their frames; the words kept by ticket.
const pack = workerData.pack;
const ctl = new Int32Array(workerData.ctl);
const slots = pack && new Int32Array(pack.slots);
const pin = pack && new Uint8Array(pack.input);
const pout = pack && new Uint8Array(pack.output);
const kept = new Map();
let z, zh, zs, zend;
const openZ = () => {
  zh = undefined;
  try { z?.close(); } catch {}
  try {
    z = new zlib.ZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: 1 } });
    z.on('error', () => {});
    if (typeof z._handle?.writeSync === 'function' && z._writeState instanceof Uint32Array && typeof z._finishFlushFlag === 'number') {
      zh = z._handle;
      zs = z._writeState;
      zend = z._finishFlushFlag;
    }
  } catch {}
};
if (pack) openZ();
let served = 0;
const servePacks = () => {
  if (!pack) return false;
  let did = false;
  for (let n = Atomics.load(ctl, 0); served < n; served++) {
    const k = (served % ${PACK_SLOTS}) * ${SLOT_INTS};
    if (Atomics.compareExchange(slots, k, ${POSTED}, ${PACKING}) !== ${POSTED}) continue;
    did = true;
    const off = slots[k + 1], len = slots[k + 2], outOff = slots[k + 3], room = slots[k + 4], id = slots[k + 5], ticket = slots[k + 6];
    let outLen = -1;
    if (zh) {
      zs[0] = 0;
      zs[1] = 1;
      try {
        zh.writeSync(zend, pin, off, len, pout, outOff, room);
        if (zs[1] === 0 && zs[0] !== 0 && z._handle === zh) outLen = room - zs[0];
        else openZ();
      } catch {
        openZ();
      }
    }
    // Kept by the slot's ticket (unique for the worker's life), not by row id (a rolled-back
    // transaction's ids are given again) nor by this loop's count (the slot may hold a later ticket).
    if (outLen >= 0 && id > 0) kept.set(ticket, pin.slice(off, off + len));
    slots[k + 4] = outLen;
    Atomics.store(slots, k, ${PACKED});
    Atomics.notify(slots, k);
    Atomics.add(ctl, 2, 1);
  }
  Atomics.store(ctl, 3, served);
  return did;
};
const handle = (m) => {
  if (m === 'close') {
    try { db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); } catch {}
    try { db.close(); } catch {}
    try { rowsDb?.close(); } catch {}
    try { z?.close(); } catch {}
    Atomics.store(state, 2, 1);
    Atomics.notify(state, 2);
    parentPort.close();
    return true;
  }
  if (m.forget) {
    for (const ticket of m.forget) kept.delete(ticket);
    return false;
  }
  try {
    db.exec('BEGIN');
    // In rowid order (inIdOrder, the same function as the main thread's): FTS5 writes its
    // pending words out as a segment whenever a row's id is lower than the one before it.
    for (const i of inIdOrder(m.rows)) {
      servePacks();
      const id = m.rows[i];
      let text = m.rows[i + 1];
      if (typeof text === 'number') {
        const ticket = text;
        text = kept.get(ticket);
        kept.delete(ticket);
        if (text === undefined) throw new Error('the words of row ' + id + ' (text ' + ticket + ') were not kept');
      }
      insert.run(id, text);
    }
    db.exec('COMMIT');
  } catch (e) {
    try { db.exec('ROLLBACK'); } catch {}
    for (let i = 1; i < m.rows.length; i += 2) if (typeof m.rows[i] === 'number') kept.delete(m.rows[i]);
    Atomics.store(state, 1, 1);
    parentPort.postMessage(String(e && e.message));
  }
  Atomics.store(state, 0, m.seq);
  Atomics.notify(state, 0);
  if (workerData.main && (sinceCheckpoint += m.chars) >= workerData.checkpointChars) checkpointRows();
  return false;
};
// Its own loop (not Node's event loop): messages taken with receiveMessageOnPort, texts packed
// as they are posted; it sleeps on ctl[1] until the main thread bumps it (a message, a text).
for (;;) {
  const seen = Atomics.load(ctl, 1);
  const t = performance.now();
  const did = servePacks();
  const got = receiveMessageOnPort(parentPort);
  if (got || did) {
    const closed = got ? handle(got.message) : false;
    busy[0] += performance.now() - t;
    if (closed) break;
    continue;
  }
  Atomics.store(ctl, 4, 1);
  Atomics.wait(ctl, 1, seen, 1000);
  Atomics.store(ctl, 4, 0);
}
`;
/** `PRAGMA quick_check` of one file, read-only, on a thread of its own: posts 'ok' or what it said. */
const CHECK_WORKER = `${WORKER_PRELUDE}
let said;
try {
  const db = new DatabaseSync(workerData.file, { readOnly: true });
  const rows = db.prepare('PRAGMA quick_check').all().map((r) => Object.values(r)[0]);
  db.close();
  said = rows.length === 1 && rows[0] === 'ok' ? 'ok' : 'quick_check said ' + String(rows[0]);
} catch (e) {
  said = String(e && e.message);
}
parentPort.postMessage(said);
`;
/**
 * Consecutive output lines of a pane kept as one row, at most this many: the row's line is
 * the first's, its text the lines joined by newlines, packed (`pack`; with deflate, a block of 128 lines
 * deflates as small at level 1 as one of 64 at level 6, for half the CPU); a hit is the line in
 * it that has every word (a row per line cost more in overhead and FTS5 inserts than its text).
 * The database's pages are 16 KiB, so a block (~4-5 KiB packed) rarely spills onto a page of its own.
 */
export const BLOCK_LINES = 128;
const DEFLATE_LEVEL = 1;
/** An entry alone in its row (a trickle's event, a decision) whose text is this long or longer is kept packed (shorter ones cost more CPU, for a call to zlib each, than they save). */
const PACK_MIN = 600;
/**
 * Stored texts are packed with zstd (level 1) where Node has it (22.15 and later): twice
 * deflate-1's speed on a block (~130 against ~65 MB/s), nearly its size (0.40x against 0.40x of
 * the bench's text). Without it, raw deflate (level 1) as before. A row says which it is: a
 * zstd frame begins with its magic number (28 b5 2f fd), which raw deflate as zlib writes it
 * never begins with (0x28 would be a stored block with padding bits set); rows deflated by an
 * older version stay readable. An index holding zstd rows says so (`meta` `zstd`), and one
 * opened where Node lacks zstd is moved aside and built again, as one of another schema.
 */
const ZSTD = typeof zlib.zstdCompressSync === 'function' && typeof zlib.zstdDecompressSync === 'function';
const ZSTD_PARAMS = ZSTD ? { params: { [zlib.constants.ZSTD_c_compressionLevel]: 1 } } : {};

/** A text as stored: zstd (level 1) where Node has it, else raw deflate (level 1). */
export function pack(text: string): Uint8Array {
  return ZSTD ? zlib.zstdCompressSync(text, ZSTD_PARAMS) : zlib.deflateRawSync(text, { level: DEFLATE_LEVEL });
}

/** The zstd stream's native handle as Node's zlib keeps it (not public: looked for, `packed` falls back to `pack` without it). */
interface ZstdHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

/**
 * A zstd stream's native handle, for whole frames by `writeSync` (not public: looked for, with
 * the write state and the end-of-frame flag it needs); undefined where Node lacks them. An error
 * of the handle is the stream's, told a tick after Node has let the handle go: `gone` then.
 */
function keptHandle(stream: zlib.ZstdCompress | zlib.ZstdDecompress, gone: () => void): { handle: ZstdHandle; state: Uint32Array; end: number } | undefined {
  const inner = stream as unknown as { _handle?: ZstdHandle; _writeState?: Uint32Array; _finishFlushFlag?: number };
  stream.on('error', gone);
  if (typeof inner._handle?.writeSync === 'function' && inner._writeState instanceof Uint32Array && typeof inner._finishFlushFlag === 'number') {
    return { handle: inner._handle, state: inner._writeState, end: inner._finishFlushFlag };
  }
  return undefined;
}

/**
 * Texts packed as `pack` packs them (zstd level 1, the same frames), through one zstd context
 * kept from text to text and two buffers kept: `zstdCompressSync` makes a stream object, a
 * native context and its tables, and an output buffer a call, and closes them at its end
 * (37% of its time on the bench's blocks: 245 → 155 ms for 3,184 blocks of ~9.7 K characters).
 * Each text is given whole with zstd's end of frame, so the context ends the frame and starts
 * the next one as new (it is never reset: Node's reset puts the level back to zstd's default,
 * 3). Where Node's stream lacks the handle this needs, or a write fails or does not end its
 * frame (never seen), `pack`, and a new context for the next text.
 */
export class Packer {
  private handle?: ZstdHandle;
  /** The stream whose handle it is (closed with the index, or when a new one is made). */
  private stream?: zlib.ZstdCompress;
  /** [output space left, input left] after a write, as Node's handle reports them. */
  private state?: Uint32Array;
  private end = 0;
  private input = Buffer.allocUnsafe(64 * 1024);
  private output = Buffer.allocUnsafe(64 * 1024);

  constructor() {
    this.open();
  }

  private open(): void {
    this.close();
    if (!ZSTD) return;
    try {
      const stream = (this.stream = new zlib.ZstdCompress(ZSTD_PARAMS));
      const kept = keptHandle(stream, () => {
        if (this.stream === stream) this.handle = undefined;
      });
      if (kept) ({ handle: this.handle, state: this.state, end: this.end } = kept);
    } catch {
      // pack, a stream a text
    }
  }

  /** Whether texts go through the kept context (false where Node lacks zstd or the handle, or once closed). */
  get kept(): boolean {
    return !!this.handle;
  }

  /** Its context freed (`packed` then packs with `pack`). */
  close(): void {
    this.handle = undefined;
    try {
      this.stream?.close();
    } catch {
      // freed anyway when collected
    }
    this.stream = undefined;
  }

  /** The UTF-8 length of the last text packed through the kept context (-1: it was packed apart, `pack`). */
  private utf8 = -1;

  /**
   * The last text `packed` packed, as UTF-8: a copy of the bytes it gave zstd (no second
   * encoding); undefined when it was packed apart (`pack`, which encodes inside zlib).
   */
  textBytes(): Uint8Array | undefined {
    return this.utf8 < 0 ? undefined : Uint8Array.prototype.slice.call(this.input, 0, this.utf8);
  }

  /** The text packed: a view of a buffer the next call writes over (bind it at once). */
  packed(text: string): Uint8Array {
    this.utf8 = -1;
    if (!this.handle) return pack(text);
    if (text.length * 3 > this.input.length) this.input = Buffer.allocUnsafe(text.length * 3);
    const n = this.input.write(text, 0, 'utf8');
    const out = this.frame(this.input, 0, n);
    if (!out) return pack(text);
    this.utf8 = n;
    return out;
  }

  /**
   * A text's UTF-8 (`n` bytes of `bytes` from `off`: a text the FTS5 worker was to pack, and
   * had not begun) packed as `packed` packs its text, the same frame: a view of a buffer the
   * next call writes over. (`textBytes` is not set.)
   */
  packedUtf8(bytes: Uint8Array, off: number, n: number): Uint8Array {
    this.utf8 = -1;
    return this.frame(bytes, off, n) ?? packUtf8(bytes.slice(off, off + n));
  }

  /** `n` bytes of `input` from `off` as one frame through the kept context; undefined where it cannot (no context, or the write failed: a new context made). */
  private frame(input: Uint8Array, off: number, n: number): Uint8Array | undefined {
    const handle = this.handle;
    if (!handle) return undefined;
    // zstd's bound for n bytes is n + n/256 + 64 and a little: room for it all in one write.
    if (frameRoom(n) > this.output.length) this.output = Buffer.allocUnsafe(frameRoom(n));
    const state = this.state!;
    // Written over by a write that ends: a write that fails (Node tells it through the handle's
    // onerror, not by throwing, and lets the handle go) leaves them saying "not ended".
    state[0] = 0;
    state[1] = 1;
    try {
      handle.writeSync(this.end, input, off, n, this.output, 0, this.output.length);
    } catch {
      this.open();
      return undefined;
    }
    const outLeft = state[0]!;
    if (state[1] !== 0 || outLeft === 0 || this.stream?.destroyed || (this.stream as unknown as { _handle?: unknown })?._handle !== handle) {
      // Its frame not ended, or the handle let go after an error: a new context, this text packed apart.
      this.open();
      return undefined;
    }
    return this.output.subarray(0, this.output.length - outLeft);
  }
}

/** Room for one zstd frame of `n` bytes (zstd's bound is n + n/256 + 64 and a little). */
const frameRoom = (n: number): number => n + (n >> 7) + 1024;

/** A text's UTF-8 packed as `pack` packs the text (the same bytes zlib would encode it to). */
function packUtf8(bytes: Uint8Array): Uint8Array {
  return ZSTD ? zlib.zstdCompressSync(bytes, ZSTD_PARAMS) : zlib.deflateRawSync(bytes, { level: DEFLATE_LEVEL });
}

/** A stored text read back: a string as it is, a zstd frame or raw deflate unpacked. */
export function storedText(v: string | Uint8Array | number | null): string {
  if (!(v instanceof Uint8Array)) return String(v);
  const zstd = v.length >= 4 && v[0] === 0x28 && v[1] === 0xb5 && v[2] === 0x2f && v[3] === 0xfd;
  if (!zstd) return zlib.inflateRawSync(v).toString('utf8');
  return (unpacker ??= new Unpacker()).text(v) ?? zlib.zstdDecompressSync(v).toString('utf8');
}

/**
 * The length a zstd frame says its content has (its header's Frame_Content_Size), or -1 when
 * it does not say (or this is not a frame's header). A frame `pack` or `Packer` made says it:
 * zstd ends a frame given whole in one call with its length in its header.
 */
export function frameSize(f: Uint8Array): number {
  if (f.length < 6 || f[0] !== 0x28 || f[1] !== 0xb5 || f[2] !== 0x2f || f[3] !== 0xfd) return -1;
  const fhd = f[4]!;
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag;
  if (fcsBytes === 0) return -1;
  const at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]!;
  if (at + fcsBytes > f.length) return -1;
  let n = 0;
  for (let i = fcsBytes - 1; i >= 0; i--) n = n * 256 + f[at + i]!;
  return fcsBytes === 2 ? n + 256 : n;
}

/** The longest text `Unpacker` unpacks into its kept buffer (longer ones: `zstdDecompressSync`). */
const UNPACK_KEPT = 1024 * 1024;
/**
 * Stored texts unpacked through one zstd context kept from text to text, into one buffer kept
 * (as `Packer` packs them): `zstdDecompressSync` makes a stream, a native context and an
 * output buffer a call, memory V8 counts as outside its heap: a query reads ~100 blocks (a
 * two-word one up to ~3,000), and every ~60-100 queries V8 marked the whole heap at once for
 * that ("external memory pressure"), a pause as long as the heap is big (85-180 ms for the
 * 1 GB bench's ~260 MB, the tail of its queries; docs/spec/performance.md, Search queries
 * 2026-12-07). Texts of more than UNPACK_KEPT bytes go through `zstdDecompressSync` (a
 * block is ~10 KB): the kept buffer stays small.
 * Each frame is given whole and its whole content taken (its header says its length,
 * `frameSize`): the context ends the frame and starts the next as new. Undefined where it
 * cannot (no handle, a frame that does not say its length, a write that fails or does not
 * give that length: a new context made), and the caller unpacks it as before.
 */
class Unpacker {
  private handle?: ZstdHandle;
  private stream?: zlib.ZstdDecompress;
  private state?: Uint32Array;
  private end = 0;
  private output = Buffer.allocUnsafe(64 * 1024);

  constructor() {
    this.open();
  }

  private open(): void {
    this.handle = undefined;
    try {
      this.stream?.close();
    } catch {
      // freed anyway when collected
    }
    this.stream = undefined;
    if (!ZSTD) return;
    try {
      const stream = (this.stream = new zlib.ZstdDecompress());
      const kept = keptHandle(stream, () => {
        if (this.stream === stream) this.handle = undefined;
      });
      if (kept) ({ handle: this.handle, state: this.state, end: this.end } = kept);
    } catch {
      // zstdDecompressSync, a stream a text
    }
  }

  /** The frame's text, or undefined (see the class). */
  text(frame: Uint8Array): string | undefined {
    const handle = this.handle;
    const size = frameSize(frame);
    if (!handle || size < 0 || size > UNPACK_KEPT) return undefined;
    // (One byte of room more than the frame says: a frame with more than it says fills it.)
    if (size + 1 > this.output.length) this.output = Buffer.allocUnsafe(Math.max(size + 1, this.output.length * 2));
    const state = this.state!;
    state[0] = 0;
    state[1] = 1;
    try {
      handle.writeSync(this.end, frame, 0, frame.length, this.output, 0, size + 1);
    } catch {
      this.open();
      return undefined;
    }
    if (state[1] !== 0 || state[0] !== 1 || this.stream?.destroyed || (this.stream as unknown as { _handle?: unknown })?._handle !== handle) {
      // Not all of the frame taken, or not the length it says, or the handle let go after an error.
      this.open();
      return undefined;
    }
    return this.output.toString('utf8', 0, size);
  }
}
let unpacker: Unpacker | undefined;
/**
 * Other entries (commands, agents' events, decisions …) of one source that come in one
 * transaction are kept as blocks too, of at most BLOCK_LINES entries and about this many
 * characters: one row, the entries as JSON (`[kind, at, line, exit, ref, text]` each), packed.
 */
export const ENTRY_BLOCK_CHARS = 8192;
/** Kinds as stored (their index): a small integer a row rather than a word. */
const KINDS: readonly SearchKind[] = ['output', 'command', 'prompt', 'reply', 'tool', 'surface', 'decision', 'tick'];
const OUTPUT = KINDS.indexOf('output');
const COMMAND = KINDS.indexOf('command');
/** The kind of a row that is a block of other entries (its `at` the newest entry's). */
const ENTRIES = KINDS.length;
/** The most hits one query returns. */
export const MAX_HITS = 500;
/** The longest text one entry keeps. */
const MAX_TEXT = 8192;

/** A pane's lines held back at most this long (add with `hold`) while its block fills. */
export const HOLD_MS = 5000;

/** Consecutive output lines of one source, not yet written: the row's id, its first entry, its lines, when it was opened. */
interface Block {
  id: number;
  first: Entry;
  lines: string[];
  since: number;
}

/** Entries of one source in one transaction, not yet written: the row's id, the entries as stored, their characters. */
interface EntryBlock {
  id: number;
  rows: StoredEntry[];
  chars: number;
}

/** The time the main thread waited for the worker, ms, by what it waited for: IN_FLIGHT of its transactions behind (`queue`), a text it was packing (`take`), every word committed (`drain`: a query, a flush, closing). */
export interface WorkerWaits {
  inFlight: number;
  text: number;
  drain: number;
}

/** A row whose text was posted to the worker to be packed (`FtsWorker.postPack`): written once its frame is back; `words`: its words are its text (the worker may keep them). */
interface Later {
  ticket: number;
  id: number;
  at: number;
  kind: number;
  src: number;
  line: number | null;
  exit: number | null;
  ref: string | null;
  words: boolean;
}

/** An entry in a block of entries: its kind's index, at, line, exit status, ref and text. */
type StoredEntry = [number, number, number | null, number | null, string | null, string];

/** What is put in the index: a hit as it will be found, before it has an id or marks. */
export type Entry = Omit<SearchHit, 'id' | 'marked'>;

/** `node:sqlite`, loaded without its ExperimentalWarning reaching the person (Node 22 prints one). */
export function sqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
    const text = typeof w === 'string' ? w : w.message;
    if (/SQLite/i.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, w, ...rest);
  }) as typeof process.emitWarning;
  try {
    const m = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined;
    if (!m) throw new Error(nodeTooOld() ?? 'node:sqlite is not in this Node.');
    return m;
  } finally {
    process.emitWarning = emit;
  }
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * `file` and its companions (`exts` after its name) renamed `<file>.corrupt-<time>…`; where they
 * went. Only this newest copy is kept: the older copies of the same file (each as big as the
 * index was, and never read again: a new index is built from the pane folders) are deleted.
 */
function moveAside(file: string, exts: readonly string[]): string {
  const to = `${file}.corrupt-${stamp()}`;
  for (const ext of exts) {
    try {
      fs.renameSync(file + ext, to + ext);
    } catch {
      // not there
    }
  }
  if (fs.existsSync(to)) {
    const dir = path.dirname(file);
    const older = `${path.basename(file)}.corrupt-`;
    const kept = path.basename(to);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(older) && !name.startsWith(kept)) fs.rmSync(path.join(dir, name), { force: true, recursive: true });
    }
  }
  return to;
}

/** A word as the index's tokenizer keeps it (unicode61, diacritics removed, folded to lower case); ASCII only lowered (the marks' search is the slow part). */
const NON_ASCII = /[^\u0000-\u007f]/;
const fold = (w: string): string => (NON_ASCII.test(w) ? w.normalize('NFD').replace(/\p{M}/gu, '') : w).toLowerCase();
const WORD = /[\p{L}\p{N}\p{M}_]+/gu;

/**
 * The query's words, folded; the last one matches as a prefix from SEARCH_PREFIX_MIN
 * characters, a shorter one whole words (a prefix of one or two letters makes FTS5 gather the
 * lists of every word it begins, most of the index).
 */
export function queryWords(query: string): QueryWord[] {
  const words = query.match(WORD) ?? [];
  return words.map((w, i) => {
    const word = fold(w);
    return { word, prefix: i === words.length - 1 && [...word].length >= SEARCH_PREFIX_MIN, re: new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i') };
  });
}

/** A query word: folded, whether it is the last (a prefix), and a case-blind pattern of it for ASCII lines. */
export interface QueryWord {
  word: string;
  prefix: boolean;
  re: RegExp;
}

/** Characters beyond ASCII, one at a time (`nextWide`). */
const NON_ASCII_G = /[^\u0000-\u007f]/g;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** For each UTF-16 code unit beyond ASCII: 1 a character of words (a letter, digit or mark), 2 a high surrogate (its code point looked at), 0 neither; made at the first query. */
let wideChars: Uint8Array | undefined;
function wideTable(): Uint8Array {
  if (wideChars) return wideChars;
  const t = new Uint8Array(0x10000);
  for (let c = 0x80; c < 0x10000; c++) t[c] = c >= 0xd800 && c <= 0xdbff ? 2 : c >= 0xdc00 && c <= 0xdfff ? 0 : WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 0;
  return (wideChars = t);
}

/**
 * Where the text's first character of words beyond ASCII (a letter, digit or mark: é, ß, 日,
 * a combining accent, K) is, at or after `from`; -1 when it has none. Only such a character can
 * make a word that folds to something other than itself lowered (`café` to `cafe`): a line
 * without one (only ASCII, or symbols beyond it as a test runner's ✓ or a box's │) has the
 * query's words, if at all, as they are, case aside.
 */
function nextWide(text: string, from: number): number {
  const table = wideTable();
  NON_ASCII_G.lastIndex = from;
  for (let m = NON_ASCII_G.exec(text); m !== null; m = NON_ASCII_G.exec(text)) {
    const kind = table[text.charCodeAt(m.index)];
    if (kind === 1 || (kind === 2 && WORD_CHAR.test(String.fromCodePoint(text.codePointAt(m.index)!)))) return m.index;
  }
  return -1;
}

/**
 * The text with each of its words that a query word matches between U+0001 and U+0002, as
 * FTS5's highlight() marks them; undefined when some query word matches none of its words.
 */
export function markWords(text: string, words: readonly QueryWord[]): string | undefined {
  // Most lines of a block lack a word: said at once, without taking the line into words (a
  // line with no character of words beyond ASCII without folding it: its words fold to
  // themselves in lower case).
  if (NON_ASCII.test(text) && nextWide(text, 0) !== -1) {
    const folded = fold(text);
    if (!words.every((q) => folded.includes(q.word))) return undefined;
  } else if (!words.every((q) => q.re.test(text))) return undefined;
  const found = new Set<number>();
  const marked = text.replace(WORD, (w) => {
    const f = fold(w);
    let hit = false;
    words.forEach((q, i) => {
      if (f === q.word || (q.prefix && f.startsWith(q.word))) {
        found.add(i);
        hit = true;
      }
    });
    return hit ? `\u0001${w}\u0002` : w;
  });
  return found.size === words.length ? marked : undefined;
}

/** What candidateLines looks for in a block: the query's longest word, case-blind (made once a query). */
export function longestWord(words: readonly QueryWord[]): RegExp {
  const longest = words.reduce((a, b) => (b.word.length > a.word.length ? b : a));
  return new RegExp(longest.re.source, 'gi');
}

/**
 * The lines of a block (its lines joined by newlines) that may have every word, as [index,
 * text], in order: a line that holds the query's longest word (case-blind), and one with a
 * character of words beyond ASCII (compared folded: `markWords`). Two passes over the block,
 * each leaving a line at its first find: one pattern for the word, and characters beyond
 * ASCII looked up in a table (a test runner's ✓ lines, a sixth of a fleet's output, are not
 * taken: they are symbols, never part of a word), rather than a look at each line.
 */
export function candidateLines(text: string, words: readonly QueryWord[], find = longestWord(words)): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let index = 0;
  let counted = 0;
  find.lastIndex = 0;
  let word = find.exec(text)?.index ?? -1;
  let wide = NON_ASCII.test(text) ? nextWide(text, 0) : -1;
  while (word !== -1 || wide !== -1) {
    const at = word === -1 ? wide : wide === -1 ? word : Math.min(word, wide);
    const start = text.lastIndexOf('\n', at - 1) + 1;
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    for (let p = text.indexOf('\n', counted); p !== -1 && p < start; p = text.indexOf('\n', p + 1)) index++;
    counted = start;
    out.push([index, text.slice(start, end)]);
    if (word !== -1 && word <= end) {
      find.lastIndex = end + 1;
      word = find.exec(text)?.index ?? -1;
    }
    if (wide !== -1 && wide <= end) wide = nextWide(text, end + 1);
  }
  return out;
}

/**
 * A query as FTS5 MATCH text: each word quoted (no operators from the person), the last one a
 * prefix from SEARCH_PREFIX_MIN characters; '' when it has no word. The index's tokenizer cuts words
 * at `_` (`cache_key` is `cache` and `key`: fewer distinct words, so a prefix gathers fewer
 * lists), so a query word is its parts, each quoted (detail=none has no phrases): FTS5 finds
 * the rows that hold every part, and each line or entry of them is then compared with the
 * whole words (`markWords`). The last word's last part is a prefix when the word is; a part
 * shorter than SEARCH_PREFIX_MIN that would be a prefix is left to that comparison (unless it is the
 * only part).
 */
export function matchText(query: string): string {
  const { whole, prefix } = matchParts(query);
  return [...whole.map((p) => `"${p}"`), ...(prefix === undefined ? [] : [`"${prefix}"*`])].join(' ');
}

/** A query's terms for FTS5 (`matchText`): the parts matched whole, and the prefix (the last word's last part, when it is one). */
export function matchParts(query: string): { whole: string[]; prefix?: string } {
  const words = queryWords(query);
  const whole: string[] = [];
  let prefix: string | undefined;
  words.forEach((q, i) => {
    const parts = q.word.split('_').filter((p) => p !== '');
    parts.forEach((p, k) => {
      const last = i === words.length - 1 && k === parts.length - 1;
      if (last && q.prefix && [...p].length < SEARCH_PREFIX_MIN && (whole.length > 0 || k > 0)) return;
      if (last && q.prefix) prefix = p;
      else whole.push(p);
    });
  });
  return { whole, ...(prefix === undefined ? {} : { prefix }) };
}

/**
 * A prefix with at most this many words in the index is asked of FTS5 as those words, one OR
 * another (`SearchIndex.prefixTerms`); one with more as a prefix, FTS5 gathering their lists.
 */
export const PREFIX_TERMS = 256;

/**
 * Where each row is in [rowid, text, rowid, text …], in rowid order. FTS5 keeps a transaction's
 * words in a hash until it holds `hashsize` (HASH_SIZE) and then writes them out as a segment, but also
 * whenever a row's id is lower than the one before it: rows are written as their blocks fill, and a
 * block opened earlier (a lower id) is often written after later ones (the panes' blocks fill in
 * turn, a held block goes in among a later slice's rows), so in the order they were written a
 * flood's 1 M characters made many small segments a transaction, each sorted, written and merged
 * again (the worker's CPU 4.3-4.5 → 3.3 s for the 256 MB bench's words in id order). Rows given in
 * id order make the same index.
 */
function inIdOrder(rows: ReadonlyArray<number | string | Uint8Array | null>): number[] {
  const order: number[] = [];
  let sorted = true;
  for (let i = 0; i < rows.length; i += 2) {
    if (i > 0 && (rows[i] as number) < (rows[i - 2] as number)) sorted = false;
    order.push(i);
  }
  if (!sorted) order.sort((a, b) => (rows[a] as number) - (rows[b] as number));
  return order;
}

/**
 * The worker thread writing the FTS5 table (its own connection to FTS_FILE) while it runs:
 * each transaction's words once its rows are committed, at most IN_FLIGHT transactions behind.
 */
class FtsWorker {
  private readonly worker: Worker;
  /** [0] the last transaction committed, [1] set if one failed, [2] set once closed. */
  private readonly state = new Int32Array(new SharedArrayBuffer(12));
  /**
   * [0] texts posted for packing, all told; [1] bumped with each message, and with texts (the
   * worker sleeps on it); [2] texts the worker packed, all told; [3] texts it has looked at, all
   * told; [4] set while it sleeps.
   */
  private readonly ctl = new Int32Array(new SharedArrayBuffer(20));
  /** The time its thread has been busy, ms (its loop counts it: it does not wait in Node's event loop). */
  private readonly busy = new Float64Array(new SharedArrayBuffer(8));
  /** Packing on the worker (`postPack`; none where Node lacks zstd): the slots, the texts' UTF-8 and their frames. */
  private readonly slots?: Int32Array;
  private readonly input?: Buffer;
  private readonly output?: Uint8Array;
  /** Where the transaction's next text and frame go in `input` and `output`, and its texts posted (from `first`, all told). */
  private inPos = 0;
  private outPos = 0;
  private first = 0;
  private posted = 0;
  /** Words of committed transactions not yet given to the thread ([rowid, text …]), and their characters. */
  private batch: Array<number | string | Uint8Array> = [];
  private batchChars = 0;
  private error?: string;
  lastPost = Date.now();

  constructor(file: string, main?: string) {
    let pack: { ctl: SharedArrayBuffer; slots: SharedArrayBuffer; input: SharedArrayBuffer; output: SharedArrayBuffer } | undefined;
    if (ZSTD) {
      pack = { ctl: this.ctl.buffer as SharedArrayBuffer, slots: new SharedArrayBuffer(PACK_SLOTS * SLOT_INTS * 4), input: new SharedArrayBuffer(PACK_BYTES), output: new SharedArrayBuffer(PACK_BYTES) };
      this.slots = new Int32Array(pack.slots);
      this.input = Buffer.from(pack.input);
      this.output = new Uint8Array(pack.output);
    }
    this.worker = new Worker(FTS_WORKER, {
      eval: true,
      workerData: { file, main, checkpointChars: MAIN_CHECKPOINT_CHARS, state: this.state.buffer, busy: this.busy.buffer, ctl: this.ctl.buffer, pack },
    });
    this.worker.unref();
    this.worker.on('message', (m: string) => {
      this.error = m;
    });
    this.worker.on('error', (e: Error) => {
      this.error = e.message;
    });
  }

  /** The time its thread has been busy writing and packing, ms. */
  busyMs(): number {
    return this.busy[0]!;
  }

  /** How many texts the worker packed, all told. */
  packedCount(): number {
    return Atomics.load(this.ctl, 2);
  }

  /** The worker did not finish a text within WORKER_WAIT_MS: no more are given to it (it may still write its slots). */
  private stuck = false;

  /** Whether texts go to the worker to be packed: it can (zstd), and its FTS5 transactions are not PACK_BEHIND behind (then the main thread packs them, as the slower thread is the worker). */
  get packs(): boolean {
    return !!this.slots && !this.stuck && this.seq - Atomics.load(this.state, 0) < PACK_BEHIND && Atomics.load(this.state, 1) === 0;
  }

  private wake(): void {
    Atomics.add(this.ctl, 1, 1);
    Atomics.notify(this.ctl, 1);
  }

  /**
   * A text given to the worker to be packed (its UTF-8 copied into the shared buffer); its
   * ticket for `take`, or -1 when it does not fit (pack it on this thread). `id` > 0: the worker
   * keeps the UTF-8 as that row's words (the row's words then queued as the ticket).
   */
  postPack(text: string, id: number): number {
    const slots = this.slots;
    if (!slots || this.posted - this.first >= PACK_SLOTS || text.length * 3 > PACK_BYTES - this.inPos) return -1;
    const n = this.input!.write(text, this.inPos, 'utf8');
    const room = frameRoom(n);
    if (room > PACK_BYTES - this.outPos) return -1;
    const k = (this.posted % PACK_SLOTS) * SLOT_INTS;
    // (A slot the worker is still packing is never given again: only after a stop, `stuck`.)
    if (Atomics.load(slots, k) === PACKING) return -1;
    const ticket = this.posted++;
    slots[k + 1] = this.inPos;
    slots[k + 2] = n;
    slots[k + 3] = this.outPos;
    slots[k + 4] = room;
    slots[k + 5] = id;
    slots[k + 6] = ticket;
    Atomics.store(slots, k, POSTED);
    Atomics.store(this.ctl, 0, this.posted);
    this.inPos += n;
    this.outPos += room;
    // A sleeping worker woken once WAKE_TEXTS are waiting, not for each (each wake costs both threads a few µs).
    if (Atomics.load(this.ctl, 4) === 1 && this.posted - Atomics.load(this.ctl, 3) >= WAKE_TEXTS) this.wake();
    return ticket;
  }

  /**
   * A posted text's frame: the worker's (and whether it kept the words), or, when the worker
   * has not begun it, packed here from the same UTF-8 by `packer` (with a copy of the UTF-8
   * as its words). A view of a shared or kept buffer: bind it at once.
   */
  take(ticket: number, packer: Packer): { frame: Uint8Array; kept: boolean; utf8?: Uint8Array } {
    const slots = this.slots!;
    const k = (ticket % PACK_SLOTS) * SLOT_INTS;
    const here = (): { frame: Uint8Array; kept: boolean; utf8: Uint8Array } => {
      const off = slots[k + 1]!;
      const n = slots[k + 2]!;
      return { frame: packer.packedUtf8(this.input!, off, n), kept: false, utf8: Uint8Array.prototype.slice.call(this.input!, off, off + n) };
    };
    if (Atomics.compareExchange(slots, k, POSTED, TAKEN) === POSTED) return here();
    const w0 = performance.now();
    while (Atomics.load(slots, k) === PACKING) {
      if (performance.now() - w0 > WORKER_WAIT_MS) {
        // (Packing ends on this worker: it may still write this slot and its buffers.)
        this.stuck = true;
        throw new Error(`the search index's writer stopped${this.error ? ` (${this.error})` : ''}`);
      }
      Atomics.wait(slots, k, PACKING, 1000);
    }
    this.waited.text += performance.now() - w0;
    const len = slots[k + 4]!;
    if (len < 0) return here();
    const off = slots[k + 3]!;
    return { frame: this.output!.subarray(off, off + len), kept: slots[k + 5]! > 0 };
  }

  /** The transaction's texts all taken (or given up: `forget`): the shared buffers start again from their beginning. */
  settle(): void {
    this.inPos = 0;
    this.outPos = 0;
    this.first = this.posted;
  }

  /**
   * The transaction's texts given up (it rolled back): each waited for or taken back, and the
   * words the worker kept of them dropped (by ticket). A text the worker never finished (it
   * stopped for WORKER_WAIT_MS) ends packing on this worker: its slot and buffers may still be
   * written by it.
   */
  forget(): void {
    const slots = this.slots;
    if (!slots) return;
    const tickets: number[] = [];
    try {
      for (let t = this.first; t < this.posted; t++) {
        const k = (t % PACK_SLOTS) * SLOT_INTS;
        if (Atomics.compareExchange(slots, k, POSTED, TAKEN) === POSTED) continue;
        const t0 = performance.now();
        // (Not waited for again once a wait gave up on the worker.)
        while (!this.stuck && Atomics.load(slots, k) === PACKING && performance.now() - t0 < WORKER_WAIT_MS) Atomics.wait(slots, k, PACKING, 1000);
        const now = Atomics.load(slots, k);
        if (now === PACKING) this.stuck = true;
        else if (now === PACKED && slots[k + 4]! >= 0 && slots[k + 5]! > 0) tickets.push(t);
      }
    } finally {
      this.settle();
    }
    if (tickets.length > 0) this.send({ forget: tickets });
  }

  private send(m: unknown): void {
    this.worker.postMessage(m);
    this.wake();
  }

  /** Transactions given to the thread, all told. */
  private seq = 0;

  /**
   * A committed transaction's words ([rowid, text …], `chars` characters; a text a number: the
   * worker kept it when it packed the row): gathered, and given to the worker as one of its
   * transactions once FTS_BATCH_CHARS are (or by `drain`); waits while IN_FLIGHT of those are
   * not yet committed.
   */
  queue(rows: Array<number | string | Uint8Array>, chars: number): void {
    if (this.batch.length === 0) this.batch = rows;
    else for (const x of rows) this.batch.push(x);
    this.batchChars += chars;
    this.lastPost = Date.now();
    if (this.batchChars >= FTS_BATCH_CHARS) this.post();
  }

  private post(): void {
    if (this.batch.length === 0) return;
    this.send({ seq: ++this.seq, rows: this.batch, chars: this.batchChars });
    this.batch = [];
    this.batchChars = 0;
    this.waitFor(this.seq - IN_FLIGHT, 'inFlight');
  }

  /** Wait (the thread blocked) until every word queued is committed; false when a transaction failed (its words are missing). */
  drain(): boolean {
    this.post();
    this.waitFor(this.seq, 'drain');
    return Atomics.load(this.state, 1) === 0;
  }

  private waitFor(seq: number, why: 'inFlight' | 'drain'): void {
    if (Atomics.load(this.state, 0) >= seq) return;
    const t0 = Date.now();
    const w0 = performance.now();
    for (let done = Atomics.load(this.state, 0); done < seq; done = Atomics.load(this.state, 0)) {
      if (Date.now() - t0 > WORKER_WAIT_MS) throw new Error(`the search index's writer stopped${this.error ? ` (${this.error})` : ''}`);
      Atomics.wait(this.state, 0, done, 1000);
    }
    this.waited[why] += performance.now() - w0;
  }

  /** The time this thread waited for the worker, ms: IN_FLIGHT of its transactions behind, a text it was packing, all its words committed (a query, a flush, closing). */
  readonly waited: WorkerWaits = { inFlight: 0, text: 0, drain: 0 };

  /** Its connection closed (the WAL written back), the thread ended; false when a transaction failed. */
  close(): boolean {
    let ok = false;
    try {
      ok = this.drain();
    } catch {
      // ended below anyway
    }
    this.send('close');
    const t0 = Date.now();
    while (Atomics.load(this.state, 2) === 0 && Date.now() - t0 < WORKER_WAIT_MS) Atomics.wait(this.state, 2, 0, 1000);
    if (Atomics.load(this.state, 2) === 0) void this.worker.terminate();
    return ok;
  }
}

export class SearchIndex {
  readonly file: string;
  /** Set when the database found at open was moved aside: where it went, and why. */
  readonly movedAside?: { to: string; why: string };
  private readonly db: Db;
  private readonly insertDocQ: StatementSync;
  private readonly insertBody: StatementSync;
  private readonly insertFts: StatementSync;
  private readonly ftsFile: string;
  /** The worker writing the FTS5 table while text floods in (none: the rows' transaction writes it). */
  private fts?: FtsWorker;
  private idleTimer?: NodeJS.Timeout;
  /** The time workers that ended were busy, ms. */
  private endedWorkersMs = 0;
  /** The texts workers that ended packed. */
  private endedWorkersPacked = 0;
  /** The time this thread waited for workers that ended, ms. */
  private readonly endedWorkersWaited: WorkerWaits = { inFlight: 0, text: 0, drain: 0 };
  /** Words for the FTS5 table of the transaction being written: [rowid, text (a string, or its UTF-8; a number: the ticket of the words the worker kept when it packed the row) …], and their characters. */
  private ftsRows: Array<number | string | Uint8Array> = [];
  private ftsChars = 0;
  private readonly setCursor: StatementSync;
  private readonly getCursor: StatementSync;
  private readonly findSrc: StatementSync;
  private readonly insertSrc: StatementSync;
  private readonly setLine: StatementSync;
  private readonly maxIdQ: StatementSync;
  private readonly srcs = new Map<string, number>();
  /** The source last looked up, and its id. */
  private lastSrc?: Pick<Entry, 'paneId' | 'session' | 'agent' | 'folder'> & { id: number };
  /** Blocks open across transactions (add with `hold`), by source. */
  private readonly held = new Map<number, Block>();
  /** Packs the rows' texts (one zstd context kept). */
  private readonly packer = new Packer();
  /** Each pane's private key block its output lines are in (redacted whole, across adds). */
  private readonly keys = new KeyBlocks();
  /** The highest id taken (a held block's id is taken before it is written). */
  private lastId = 0;
  /** A query's statement by its SQL (one a combination of filters), prepared once. */
  private readonly queries = new Map<string, StatementSync>();
  /** The index's words from a given one on (`prefixTerms`), made at the first query with a prefix. */
  private termsQ?: StatementSync;

  constructor(folder: string) {
    this.file = path.join(folder, DB_FILE);
    const ftsFile = (this.ftsFile = path.join(folder, FTS_FILE));
    const { DatabaseSync } = sqlite();
    let db: Db | undefined;
    let why: string | undefined;
    try {
      db = new DatabaseSync(this.file);
      const check = db.prepare('PRAGMA quick_check').all().map((r) => Object.values(r)[0]);
      if (check.length !== 1 || check[0] !== 'ok') why = `quick_check said ${String(check[0])}`;
      else if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'meta'").get()) {
        const v = (db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as { v?: string } | undefined)?.v;
        if (v !== String(SCHEMA_VERSION)) why = `it was made by another version (schema ${v ?? 'unknown'}, this one reads ${SCHEMA_VERSION})`;
        else if (!ZSTD && db.prepare("SELECT 1 FROM meta WHERE k = 'zstd'").get()) why = 'its texts are packed with zstd, which this Node lacks (22.15 or later has it)';
      }
      if (!why) {
        db.prepare('ATTACH ? AS f').run(ftsFile);
        // Its first page only (a file that is no database at all); the whole file is checked after the start (checkWords).
        db.prepare('SELECT count(*) FROM f.sqlite_master').get();
      }
    } catch (e) {
      why = (e as Error).message;
    }
    if (why) {
      try {
        db?.close();
      } catch {
        // it is being put aside anyway
      }
      const to = moveAside(this.file, ['', '-wal', '-shm', '-fts', '-fts-wal', '-fts-shm']);
      this.movedAside = { to, why };
      db = new DatabaseSync(this.file);
      db.prepare('ATTACH ? AS f').run(ftsFile);
    }
    this.db = db!;
    fs.chmodSync(this.file, 0o600);
    fs.chmodSync(ftsFile, 0o600);
    // Before the first table (a database made anew): 16 KiB pages hold several blocks each.
    this.db.exec('PRAGMA main.page_size = 16384; PRAGMA f.page_size = 16384;');
    this.db.exec('PRAGMA main.journal_mode = WAL; PRAGMA f.journal_mode = WAL; PRAGMA main.synchronous = NORMAL; PRAGMA f.synchronous = NORMAL; PRAGMA busy_timeout = 10000;');
    // WAL written back every ~16 MB rather than 4 (each write-back syncs the file).
    this.db.exec('PRAGMA main.wal_autocheckpoint = 4000;');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);
      CREATE TABLE IF NOT EXISTS src(id INTEGER PRIMARY KEY, pane TEXT NOT NULL, session TEXT NOT NULL, agent TEXT, folder TEXT,
        UNIQUE(pane, session, agent, folder));
      CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind INTEGER NOT NULL, src INTEGER NOT NULL,
        line INTEGER, exit INTEGER, ref TEXT, body INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, text NOT NULL);
      ${FTS_TABLE};
      CREATE TABLE IF NOT EXISTS cursors(file TEXT PRIMARY KEY, offset INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS lines(pane TEXT PRIMARY KEY, next INTEGER NOT NULL);
    `);
    this.db.prepare('INSERT OR IGNORE INTO meta(k, v) VALUES (?, ?)').run('schema', String(SCHEMA_VERSION));
    if (ZSTD) this.db.prepare('INSERT OR IGNORE INTO meta(k, v) VALUES (?, ?)').run('zstd', '1');
    this.insertDocQ = this.db.prepare('INSERT INTO docs(id, at, kind, src, line, exit, ref, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.insertBody = this.db.prepare('INSERT INTO bodies(text) VALUES (?)');
    this.setCursor = this.db.prepare('INSERT INTO cursors(file, offset) VALUES (?, ?) ON CONFLICT(file) DO UPDATE SET offset = excluded.offset');
    this.getCursor = this.db.prepare('SELECT offset FROM cursors WHERE file = ?');
    this.findSrc = this.db.prepare('SELECT id FROM src WHERE pane = ? AND session = ? AND agent IS ? AND folder IS ?');
    this.insertSrc = this.db.prepare('INSERT INTO src(pane, session, agent, folder) VALUES (?, ?, ?, ?)');
    this.maxIdQ = this.db.prepare('SELECT coalesce(max(id), 0) AS n FROM docs');
    this.setLine = this.db.prepare('INSERT INTO lines(pane, next) VALUES (?, ?) ON CONFLICT(pane) DO UPDATE SET next = max(next, excluded.next)');
    this.insertFts = this.db.prepare('INSERT INTO f.fts(rowid, text) VALUES (?, ?)');
    try {
      this.ftsSettings();
      this.mend();
    } catch (e) {
      // A words' file whose pages are broken (the rows' file was checked above): made again from the rows.
      this.renewWords((e as Error).message);
    }
  }

  /** The FTS5 table's settings (AUTOMERGE, HASH_SIZE), where they differ (the words' file made or renewed, or made by an older version). */
  private ftsSettings(): void {
    for (const [k, v] of [['automerge', AUTOMERGE], ['hashsize', HASH_SIZE]] as const) {
      const now = this.db.prepare('SELECT v FROM f.fts_config WHERE k = ?').get(k) as { v?: number } | undefined;
      // (A literal: bound, the value is a real, which FTS5 refuses for hashsize.)
      if (Number(now?.v) !== v) this.db.exec(`INSERT INTO f.fts(fts, rank) VALUES ('${k}', ${v})`);
    }
  }

  /** Set once the words' file was found corrupt and made again (renewWords): where the old one went, and why. */
  wordsRenewed?: { to: string; why: string };
  /** After renewWords: rows with ids above this and up to mendUntil may still lack their words (mendWords). */
  private mendAfter?: number;
  private mendUntil = 0;

  /** The words' file checked (PRAGMA quick_check) on a thread of its own: undefined when sound, else what the check said. */
  checkWords(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const w = new Worker(CHECK_WORKER, { eval: true, workerData: { file: this.ftsFile } });
      w.unref();
      w.once('message', (said: string) => resolve(said === 'ok' ? undefined : said));
      w.once('error', (e: Error) => resolve(e.message));
    });
  }

  /**
   * The words' file is corrupt: it is moved aside (`search.db-fts.corrupt-<time>`) and made
   * again, empty; the rows (texts kept in `bodies`) get their words back from `mendWords`, a
   * slice at a time. Until then a query finds only what was written since, and what is mended.
   */
  renewWords(why: string): { to: string; why: string } {
    try {
      this.stopWorker();
    } catch {
      // its file is going anyway
    }
    this.db.exec('DETACH f');
    const to = moveAside(this.ftsFile, ['', '-wal', '-shm']);
    this.db.prepare('ATTACH ? AS f').run(this.ftsFile);
    fs.chmodSync(this.ftsFile, 0o600);
    this.db.exec('PRAGMA f.page_size = 16384; PRAGMA f.journal_mode = WAL; PRAGMA f.synchronous = NORMAL;');
    this.db.exec(FTS_TABLE);
    this.ftsSettings();
    this.mendAfter = 0;
    this.mendUntil = Math.max(Number((this.maxIdQ.get() as { n: number }).n), this.lastId);
    this.wordsRenewed = { to, why: `its words (${FTS_FILE}): ${why}` };
    return this.wordsRenewed;
  }

  /** After renewWords: gives at most `rows` rows their words again; false once every row has them. */
  mendWords(rows = 64): boolean {
    if (this.mendAfter === undefined) return false;
    this.sync();
    const found = this.withoutWords(this.mendAfter, this.mendUntil, rows);
    if (found.length === 0) {
      this.mendAfter = undefined;
      return false;
    }
    this.writeWords(found);
    this.mendAfter = Number(found[found.length - 1]!.id);
    return true;
  }

  /** Rows' words written again from their stored texts, in one transaction. */
  private writeWords(rows: Array<{ id: number; kind: number; text: string | Uint8Array }>): void {
    this.db.exec('BEGIN');
    try {
      for (const r of rows) {
        const text = storedText(r.text);
        this.insertFts.run(r.id, Number(r.kind) === ENTRIES ? (JSON.parse(text) as StoredEntry[]).map((e) => e[5]).join('\n') : text);
      }
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  /**
   * The two files agree again after a kill: the worker commits a transaction's words after
   * the rows are committed, so rows whose words did not make it are given them again (their
   * texts read back), and words of rows that are gone (a kill in the middle of a prune) go.
   */
  private mend(): void {
    this.db.exec('DELETE FROM f.fts WHERE rowid IN (SELECT id FROM f.fts_docsize WHERE id NOT IN (SELECT id FROM docs))');
    const missing = this.withoutWords(0, Number.MAX_SAFE_INTEGER, -1);
    if (missing.length > 0) this.writeWords(missing);
  }

  /** Rows with ids in (after, until] that have no words, in id order, at most `limit` (-1: all), with their stored texts. */
  private withoutWords(after: number, until: number, limit: number): Array<{ id: number; kind: number; text: string | Uint8Array }> {
    return this.db
      .prepare('SELECT d.id, d.kind, b.text FROM docs d JOIN bodies b ON b.id = d.body WHERE d.id > ? AND d.id <= ? AND NOT EXISTS (SELECT 1 FROM f.fts_docsize s WHERE s.id = d.id) ORDER BY d.id LIMIT ?')
      .all(after, until, limit) as Array<{ id: number; kind: number; text: string | Uint8Array }>;
  }

  /** Every word written so far is in the FTS5 table (a query sees what was added); a worker's failed transaction mended. */
  private sync(): void {
    this.flush();
    if (this.fts && !this.fts.drain()) this.stopWorker();
  }

  /** The worker ended (its words committed first); the words of a transaction it failed are given again (`mend`). */
  private stopWorker(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const fts = this.fts;
    if (!fts) return;
    this.fts = undefined;
    const ok = fts.close();
    this.endedWorkersMs += fts.busyMs();
    this.endedWorkersPacked += fts.packedCount();
    for (const k of ['inFlight', 'text', 'drain'] as const) this.endedWorkersWaited[k] += fts.waited[k];
    if (!ok) {
      this.failedWorkers++;
      this.mend();
    }
  }

  /** Workers that ended with a transaction failed (its words then mended from the rows). */
  private failedWorkers = 0;

  /** How many of the worker threads failed a transaction of words, all told (each mended from the rows). */
  workerFailures(): number {
    return this.failedWorkers;
  }

  /** The worker ends once it was given nothing for WORKER_IDLE_MS. */
  private armIdle(): void {
    if (this.idleTimer || !this.fts) return;
    const wait = Math.max(0, this.fts.lastPost + WORKER_IDLE_MS - Date.now());
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (!this.fts) return;
      if (Date.now() - this.fts.lastPost >= WORKER_IDLE_MS) {
        try {
          this.flush();
          this.stopWorker();
        } catch {
          // the next add or query tries again
        }
      } else this.armIdle();
    }, wait);
    this.idleTimer.unref?.();
  }

  /**
   * A row: its fields in `docs` (by id, the order things came), its text in `bodies` (by the
   * order rows are written, always at the end of the table). A held block is written after rows
   * with higher ids: its few fields go in among theirs, while the texts' pages fill up to the
   * end (with the texts in `docs`, each such row split a full page: a fifth of its pages unused).
   */
  private insertDoc(id: number, at: number, kind: number, src: number, line: number | null, exit: number | null, ref: string | null, text: string | Uint8Array): void {
    const body = this.insertBody.run(text).lastInsertRowid;
    this.insertDocQ.run(id, at, kind, src, line, exit, ref, body);
  }

  /** The id of an entry's source (pane, session, agent, folder: kept once, not on every line). */
  private srcId(e: Entry): number {
    // (Most entries are of the source before them: said without making the map's key.)
    const last = this.lastSrc;
    if (last && last.paneId === e.paneId && last.session === e.session && last.agent === e.agent && last.folder === e.folder) return last.id;
    const key = `${e.paneId}\u0000${e.session}\u0000${e.agent ?? '\u0001'}\u0000${e.folder ?? '\u0001'}`;
    let id = this.srcs.get(key);
    if (id === undefined) {
      const row = this.findSrc.get(e.paneId, e.session, e.agent ?? null, e.folder ?? null) as { id: number } | undefined;
      id = row ? Number(row.id) : Number(this.insertSrc.run(e.paneId, e.session, e.agent ?? null, e.folder ?? null).lastInsertRowid);
      this.srcs.set(key, id);
    }
    this.lastSrc = { paneId: e.paneId, session: e.session, agent: e.agent, folder: e.folder, id };
    return id;
  }

  /** Where the feeder read a file up to (0: from the start). */
  cursor(file: string): number {
    const r = this.getCursor.get(file) as { offset: number } | undefined;
    return r?.offset ?? 0;
  }

  /** The number a pane's next output line gets (one past the last indexed). */
  nextLine(paneId: string): number {
    const r = this.db.prepare('SELECT next FROM lines WHERE pane = ?').get(paneId) as { next: number } | undefined;
    return r?.next ?? 0;
  }

  /**
   * Add entries, and the file offsets they were read up to, in one transaction. With `hold`,
   * a pane's block that is not full stays open after it (in memory, for at most HOLD_MS) and
   * the pane's next lines go on in it, so output that comes a few lines at a time still makes
   * full blocks; held lines are written by the next add without `hold`, `flush`, a search or
   * `close` (a kill loses them, as it loses the pane's output not yet read).
   */
  add(entries: readonly Entry[], cursors: ReadonlyMap<string, number> = new Map(), hold = false): void {
    if (entries.length === 0 && cursors.size === 0 && this.held.size === 0) return;
    const packing = this.fts?.packs ? this.fts : undefined;
    this.db.exec('BEGIN');
    try {
      const next = new Map<string, number>();
      let lastPane: string | undefined;
      let lastNext = 0;
      // The open block of each source: consecutive output lines, its first entry and lines. A
      // source's block goes on past other sources' lines and the entries between (a command, an
      // agent's event), which are written as they come: a block is written when it is full, its
      // numbering has a gap, or the transaction ends (unless held).
      // A block's id is taken when its first line comes, so ids (newest first, as hits are
      // listed) stay in the order things came.
      let id = Math.max(Number((this.maxIdQ.get() as { n: number }).n), this.lastId);
      const open = this.held;
      // While the worker runs (a flood) and keeps up, texts are packed on it (`postPack`): their
      // rows are written once the frames are back, at the end of the transaction (`later`),
      // with its cursors as before; a text the worker has not begun by then is packed here.
      const later: Later[] = [];
      const store = (id: number, at: number, kind: number, src: number, line: number | null, exit: number | null, ref: string | null, text: string, words: boolean): void => {
        const ticket = packing ? packing.postPack(text, words ? id : 0) : -1;
        if (ticket >= 0) later.push({ ticket, id, at, kind, src, line, exit, ref, words });
        else {
          this.insertDoc(id, at, kind, src, line, exit, ref, this.packer.packed(text));
          // Its words as the UTF-8 made for zstd (FTS5 reads a blob's bytes as text): the worker
          // binds them as they are, where a string (two-byte as a pane's output mostly is) was
          // encoded again on its thread, and copied twice on the way.
          if (words) this.ftsRows.push(id, this.packer.textBytes() ?? text);
        }
      };
      const write = (src: number, block: Block): void => {
        const text = block.lines.join('\n');
        store(block.id, block.first.at, OUTPUT, src, block.first.line!, null, null, text, true);
        this.ftsChars += text.length;
        open.delete(src);
      };
      // Other entries, a block a source, written when full or when the transaction ends (never
      // held: their files' cursors are committed with them); one alone is a row as it is.
      const packs = new Map<number, EntryBlock>();
      const writeEntries = (src: number, b: EntryBlock): void => {
        const text = b.rows.map((r) => r[5]).join('\n');
        if (b.rows.length === 1) {
          const [kind, at, line, exit, ref] = b.rows[0]!;
          if (text.length >= PACK_MIN) store(b.id, at, kind, src, line, exit, ref, text, false);
          else this.insertDoc(b.id, at, kind, src, line, exit, ref, text);
        } else {
          const at = b.rows.reduce((n, r) => Math.max(n, r[1]), 0);
          store(b.id, at, ENTRIES, src, null, null, null, JSON.stringify(b.rows), false);
        }
        this.ftsRows.push(b.id, text);
        this.ftsChars += text.length;
        packs.delete(src);
      };
      for (const e of entries) {
        const clipped = e.text.length > MAX_TEXT ? e.text.slice(0, MAX_TEXT) : e.text;
        // A pane's lines in order through its key block; a command's end closes the block its output left open.
        const text = e.kind === 'output' && e.line !== undefined ? this.keys.line(e.paneId, e.line, clipped) : redact(clipped);
        if (e.kind === 'command') this.keys.end(e.paneId);
        if (e.kind === 'output' && e.line !== undefined) {
          // (Lines of one pane come in runs: its next line is kept in the map when the run ends.)
          if (e.paneId === lastPane) {
            if (e.line + 1 > lastNext) lastNext = e.line + 1;
          } else {
            if (lastPane !== undefined) next.set(lastPane, lastNext);
            lastPane = e.paneId;
            lastNext = Math.max(next.get(e.paneId) ?? 0, e.line + 1);
          }
          const src = this.srcId(e);
          // (A pane's line has no newline, OutputLines cut there: no pattern run on it.)
          const oneLine = text.indexOf('\n') === -1 ? text : text.replace(/\n/g, ' ');
          let block = open.get(src);
          if (block && block.first.line! + block.lines.length === e.line) block.lines.push(oneLine);
          else {
            if (block) write(src, block);
            block = { id: ++id, first: e, lines: [oneLine], since: Date.now() };
            open.set(src, block);
          }
          if (block.lines.length === BLOCK_LINES) write(src, block);
          continue;
        }
        const src = this.srcId(e);
        let pack = packs.get(src);
        if (!pack) {
          pack = { id: ++id, rows: [], chars: 0 };
          packs.set(src, pack);
        }
        pack.rows.push([KINDS.indexOf(e.kind), e.at, e.line ?? null, e.exitCode ?? null, e.ref ?? null, text]);
        pack.chars += text.length;
        if (pack.rows.length === BLOCK_LINES || pack.chars >= ENTRY_BLOCK_CHARS) writeEntries(src, pack);
      }
      if (lastPane !== undefined) next.set(lastPane, lastNext);
      for (const [src, pack] of packs) writeEntries(src, pack);
      const now = Date.now();
      for (const [src, block] of open) if (!hold || now - block.since >= HOLD_MS) write(src, block);
      // The rows whose texts the worker packed, in the order they were posted (a text it has not begun packed here).
      for (const l of later) {
        const r = packing!.take(l.ticket, this.packer);
        this.insertDoc(l.id, l.at, l.kind, l.src, l.line, l.exit, l.ref, r.frame);
        if (l.words) this.ftsRows.push(l.id, r.kept ? l.ticket : r.utf8!);
      }
      for (const [pane, n] of next) this.setLine.run(pane, n);
      for (const [file, offset] of cursors) this.setCursor.run(file, offset);
      // A few words are written with the rows; a flood's go to the worker once they are committed.
      if (!this.fts && this.ftsChars < WORKER_MIN_CHARS) {
        for (const i of inIdOrder(this.ftsRows)) this.insertFts.run(this.ftsRows[i]!, this.ftsRows[i + 1]!);
        this.ftsRows = [];
      }
      this.db.exec('COMMIT');
      // (Only once committed: a transaction that fails up to here has its texts' kept words forgotten.)
      packing?.settle();
      this.lastId = id;
    } catch (e) {
      this.ftsRows = [];
      this.ftsChars = 0;
      try {
        packing?.forget();
      } catch {
        // (the worker stopped: its words are dropped with it)
      }
      this.db.exec('ROLLBACK');
      // A source made in the rolled-back transaction is gone with it, and the lines held.
      this.srcs.clear();
      this.lastSrc = undefined;
      this.held.clear();
      throw e;
    }
    // Its words to the worker, once the rows are committed (a kill before it commits them: `mend`).
    const chars = this.ftsChars;
    this.ftsChars = 0;
    if (this.ftsRows.length > 0) {
      this.fts ??= new FtsWorker(this.ftsFile, this.file);
      const rows = this.ftsRows;
      this.ftsRows = [];
      this.fts.queue(rows, chars);
      this.armIdle();
    }
  }

  /** The time the worker threads have been busy writing words, ms, all told (the feeder counts it with its slices' own). */
  workerMs(): number {
    return this.endedWorkersMs + (this.fts?.busyMs() ?? 0);
  }

  /** How many rows' texts the worker threads packed, all told (the rest were packed on this thread). */
  workerPacked(): number {
    return this.endedWorkersPacked + (this.fts?.packedCount() ?? 0);
  }

  /** The time this thread waited for the worker threads, ms, all told, by what it waited for (IN_FLIGHT transactions behind, a text being packed, all words committed). */
  waits(): WorkerWaits {
    const w = this.fts?.waited;
    const e = this.endedWorkersWaited;
    return { inFlight: e.inFlight + (w?.inFlight ?? 0), text: e.text + (w?.text ?? 0), drain: e.drain + (w?.drain ?? 0) };
  }

  /** Whether output lines are held back (add with `hold`), not yet written. */
  get holding(): boolean {
    return this.held.size > 0;
  }

  /** Write the lines held back. */
  flush(): void {
    if (this.held.size > 0) this.add([]);
  }

  /** Entries older than `days` days go (0: keep everything); returns how many went. A scan of the table (no index on time: it would be a fifth of the index), run every few hours. */
  prune(days: number, now = Date.now()): number {
    if (days <= 0) return 0;
    return this.deleteDocs('at < ?', [now - days * 86_400_000]);
  }

  /**
   * The rows `where` names go, with their texts and words, in one transaction: the rows read
   * once (into a temporary table: `docs` has no index but its id), then each table's by id.
   * `after` runs in the same transaction. Returns how many rows went.
   */
  private deleteDocs(where: string, args: Array<string | number>, after?: () => void): number {
    this.sync();
    this.db.exec('BEGIN');
    try {
      this.db.exec('DROP TABLE IF EXISTS temp.gone');
      this.db.prepare(`CREATE TEMP TABLE gone AS SELECT id, body FROM docs WHERE ${where}`).run(...args);
      this.db.exec('DELETE FROM f.fts WHERE rowid IN (SELECT id FROM temp.gone)');
      this.db.exec('DELETE FROM bodies WHERE id IN (SELECT body FROM temp.gone)');
      const r = this.db.prepare('DELETE FROM docs WHERE id IN (SELECT id FROM temp.gone)').run();
      after?.();
      this.db.exec('DROP TABLE temp.gone');
      this.db.exec('COMMIT');
      return Number(r.changes);
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  /** The panes the index holds entries of, with their sessions (a pane's folder is its session's). */
  panes(): Array<{ pane: string; session: string }> {
    return this.db.prepare('SELECT DISTINCT pane, session FROM src').all() as Array<{ pane: string; session: string }>;
  }

  /**
   * Everything the index holds of a pane goes (it was left out since: `search.excludePanes`),
   * its sources too (a pane forgotten is not looked at again); returns how many rows went. A
   * pane the index holds nothing of costs a look-up.
   */
  forgetPane(paneId: string): number {
    const ids = (this.db.prepare('SELECT id FROM src WHERE pane = ?').all(paneId) as Array<{ id: number }>).map((r) => Number(r.id));
    if (ids.length === 0) return 0;
    this.flush();
    const list = ids.join(',');
    const n = this.deleteDocs(`src IN (${list})`, [], () => this.db.exec(`DELETE FROM src WHERE id IN (${list})`));
    this.srcs.clear();
    this.lastSrc = undefined;
    return n;
  }

  /** Hits for a query, newest first as indexed (rowid order); throws one sentence for a filter that cannot be used. */
  search(q: SearchQuery): SearchHit[] {
    this.sync();
    const parts = matchParts(typeof q.query === 'string' ? q.query : '');
    if (parts.whole.length === 0 && parts.prefix === undefined) throw new Error('the query has no word to look for: give a word or more, for example "migration"');
    const match = this.matchOf(parts);
    const where: string[] = ['fts MATCH ?'];
    const args: Array<string | number> = [match ?? ''];
    if (q.agent) {
      where.push('s.agent = ?');
      args.push(q.agent);
    }
    if (q.pane) {
      where.push('s.pane = ?');
      args.push(q.pane);
    }
    if (q.folder) {
      const f = q.folder.replace(/\/+$/, '') || '/';
      where.push("(s.folder = ? OR s.folder LIKE ? ESCAPE '\\')");
      args.push(f, `${f.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`);
    }
    // A block of entries matches the kind and date filters when one of its entries may: each is
    // looked at when the block is read (its `at` is its newest entry's).
    if (q.kind === 'failed') where.push(`(d.kind = ${COMMAND} AND d.exit IS NOT NULL AND d.exit <> 0 OR d.kind = ${ENTRIES})`);
    else if (q.kind) {
      if (!KINDS.includes(q.kind)) throw new Error(`"${String(q.kind)}" is not a kind: use one of ${KINDS.join(', ')}, failed`);
      where.push(q.kind === 'output' ? 'd.kind = ?' : `(d.kind = ? OR d.kind = ${ENTRIES})`);
      args.push(KINDS.indexOf(q.kind));
    }
    const kindOk = (kind: number, exit: number | null): boolean =>
      q.kind === 'failed' ? kind === COMMAND && exit !== null && exit !== 0 : !q.kind || KINDS[kind] === q.kind;
    let since = -Infinity;
    if (q.since) {
      since = sinceTime(q.since);
      if (Number.isNaN(since)) throw new Error(`"${q.since}" is not a date: give one like 2026-12-01 or 2026-12-01T09:30`);
      where.push('d.at >= ?');
      args.push(since);
    }
    const limit = Math.max(1, Math.min(MAX_HITS, Number.isInteger(q.limit) ? q.limit! : 50));
    const words = queryWords(typeof q.query === 'string' ? q.query : '');
    // Newest first as indexed (rowid order, which FTS5 walks backwards without sorting the
    // matches), read row by row until enough lines matched: a block can match on words its
    // lines hold apart, and then none of its lines is a hit.
    // No word of the index begins with the prefix: nothing to find.
    if (match === undefined) return [];
    const sql = `SELECT d.id, d.kind, d.at, s.pane, s.session, s.agent, s.folder, d.line, d.exit, d.ref, b.text
      FROM f.fts JOIN docs d ON d.id = fts.rowid JOIN bodies b ON b.id = d.body JOIN src s ON s.id = d.src WHERE ${where.join(' AND ')} ORDER BY fts.rowid DESC`;
    let stmt = this.queries.get(sql);
    if (!stmt) this.queries.set(sql, (stmt = this.db.prepare(sql)));
    const find = longestWord(words);
    const hits: SearchHit[] = [];
    for (const row of stmt.iterate(...args)) {
      const r = row as Record<string, string | number | null | Uint8Array>;
      const base: SearchHit = { id: 0, kind: KINDS[Number(r.kind)]!, at: Number(r.at), paneId: String(r.pane), session: String(r.session), text: '', marked: '' };
      if (r.agent !== null) base.agent = String(r.agent);
      if (r.folder !== null) base.folder = String(r.folder);
      if (r.exit !== null) base.exitCode = Number(r.exit);
      if (r.ref !== null) base.ref = String(r.ref);
      const id = Number(r.id) * BLOCK_LINES;
      const text = storedText(r.text);
      if (Number(r.kind) === ENTRIES) {
        // A block of entries: each that matches the filters and has every word, the newest first.
        const rows = JSON.parse(text) as StoredEntry[];
        for (let i = rows.length - 1; i >= 0 && hits.length < limit; i--) {
          const [kind, at, line, exit, ref, t] = rows[i]!;
          if (at < since || !kindOk(kind, exit)) continue;
          const marked = markWords(t, words);
          if (marked === undefined) continue;
          const hit: SearchHit = { ...base, id: id + i, kind: KINDS[kind]!, at, text: t, marked };
          if (line !== null) hit.line = line;
          if (exit !== null) hit.exitCode = exit;
          if (ref !== null) hit.ref = ref;
          hits.push(hit);
        }
      } else if (Number(r.kind) === OUTPUT && r.line !== null) {
        // A block: each of its lines that has every word, the newest first.
        const lines = candidateLines(text, words, find);
        for (let k = lines.length - 1; k >= 0 && hits.length < limit; k--) {
          const [i, line] = lines[k]!;
          const marked = markWords(line, words);
          if (marked !== undefined) hits.push({ ...base, id: id + i, line: Number(r.line) + i, text: line, marked });
        }
      } else {
        // FTS5 found every part of the words: the entry must have the words whole.
        const marked = markWords(text, words);
        if (marked !== undefined) hits.push({ ...base, id, text, marked, ...(r.line !== null ? { line: Number(r.line) } : {}) });
      }
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /**
   * The MATCH text of a query's terms. FTS5 asked for a prefix (`"mig"*`) gathers the lists of
   * every word it begins into one before it gives the first row (10-20 ms at 1 GB even when it
   * begins one word), where a word asked whole gives its rows as it reads them: so a prefix of
   * ASCII letters and digits is asked as the words the index holds that begin with it
   * (`prefixTerms`), one OR another, and the rows come newest first at once (`"cache" AND
   * ("migrate" OR "migration")`). Undefined when no word of the index begins with it.
   */
  private matchOf(parts: { whole: string[]; prefix?: string }): string | undefined {
    const whole = parts.whole.map((p) => `"${p}"`);
    if (parts.prefix === undefined) return whole.join(' ');
    const terms = /^[a-z0-9]+$/.test(parts.prefix) ? this.prefixTerms(parts.prefix) : undefined;
    if (terms === undefined) return [...whole, `"${parts.prefix}"*`].join(' ');
    if (terms.length === 0) return undefined;
    return [...whole, `(${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ')})`].join(' AND ');
  }

  /**
   * The index's words that begin with `prefix`, in order (FTS5's own list of them, `fts5vocab`,
   * read from the prefix on: 2-4 ms for 120 words at 1 GB); undefined when there are more than
   * PREFIX_TERMS (an OR of that many costs more, row by row, than FTS5's gather) or the list
   * could not be read (the prefix is then asked as one).
   */
  private prefixTerms(prefix: string): string[] | undefined {
    try {
      if (!this.termsQ) {
        this.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(f, 'fts', 'row')");
        this.termsQ = this.db.prepare('SELECT term FROM temp.fts_terms WHERE term >= ?');
      }
      const out: string[] = [];
      for (const r of this.termsQ.iterate(prefix)) {
        const term = String((r as { term: string }).term);
        if (!term.startsWith(prefix)) break;
        if (out.length === PREFIX_TERMS) return undefined;
        out.push(term);
      }
      return out;
    } catch {
      return undefined;
    }
  }

  /**
   * A pane's output lines from `from` to `to` (its line numbers), as indexed: what a hit's
   * line stood among once the pane's own history no longer holds it. A scan of the pane's
   * blocks (no index on them: asked only when a person goes to such a line).
   */
  outputLines(paneId: string, from: number, to: number): Array<{ line: number; text: string }> {
    const out: Array<{ line: number; text: string }> = [];
    const rows = this.db.prepare(`SELECT d.line, b.text FROM docs d JOIN bodies b ON b.id = d.body WHERE d.src IN (SELECT id FROM src WHERE pane = ?) AND d.kind = ${KINDS.indexOf('output')}
      AND d.line > ? AND d.line <= ? ORDER BY d.line`).all(paneId, from - BLOCK_LINES, to) as Array<{ line: number; text: Uint8Array | string }>;
    for (const r of rows) {
      const lines = r.text instanceof Uint8Array ? storedText(r.text).split('\n') : [String(r.text)];
      lines.forEach((text, i) => {
        const line = Number(r.line) + i;
        if (line >= from && line <= to) out.push({ line, text });
      });
    }
    return out;
  }

  /** How many entries the index holds. */
  count(): number {
    return Number((this.db.prepare('SELECT count(*) AS n FROM docs').get() as { n: number }).n);
  }

  /** Write the WAL back into the database file (at a quiet moment; a kill loses nothing either way). */
  checkpoint(mode: 'PASSIVE' | 'TRUNCATE' = 'PASSIVE'): void {
    if (mode === 'TRUNCATE') {
      this.sync();
      // (The worker may be writing the rows' WAL back itself: a TRUNCATE then finds the
      // checkpoint taken, says busy and does nothing, so it is tried again, for up to a second.)
      const pause = new Int32Array(new SharedArrayBuffer(4));
      const truncate = this.db.prepare('PRAGMA main.wal_checkpoint(TRUNCATE)');
      for (let i = 0; i < 100 && Number(Object.values(truncate.get() ?? {})[0]) !== 0; i++) Atomics.wait(pause, 0, 0, 10);
    } else this.db.exec(`PRAGMA main.wal_checkpoint(${mode})`);
    this.db.exec(`PRAGMA f.wal_checkpoint(${mode})`);
  }

  close(): void {
    try {
      this.sync();
    } catch {
      // closing anyway
    }
    try {
      // The worker commits its words, writes its WAL back and ends.
      this.stopWorker();
    } catch {
      // closing anyway
    }
    try {
      this.db.exec('PRAGMA main.wal_checkpoint(TRUNCATE)');
      this.db.exec('PRAGMA f.wal_checkpoint(TRUNCATE)');
    } catch {
      // closing anyway
    }
    this.packer.close();
    this.db.close();
  }
}
