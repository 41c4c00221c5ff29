/**
 * Reads the new lines of an append-only JSONL file from a byte offset: whole lines
 * only (a line still being written waits for its newline), garbage lines skipped by the
 * caller, and a file that shrank (truncated or replaced) read again from its start.
 * The caller keeps the offset across restarts, so old lines are never new again.
 *
 * A line still being written is read once: its bytes so far come back as `unfinished`,
 * which the caller gives back with the same offset, and the next read goes on from their
 * end (never from the line's start again), so a read stays within its byte budget however
 * long the line grows. A line longer than the maximum is skipped to its newline, its bytes
 * counted in `dropped`, never held: the offset then moves inside it, and a read that
 * starts inside a line (the byte before it is not a newline) skips to that line's end.
 */
import fs from 'node:fs';

/** Most bytes read in one go; the rest waits for the next read. */
const MAX_READ = 4 * 1024 * 1024;
/** A line longer than this is dropped as garbage. */
export const MAX_LINE = 1024 * 1024;
/** An unfinished line's pieces kept before they are joined into one. */
const MAX_PIECES = 64;

/** The bytes of an unfinished line read so far, from the read's `offset` on. */
export type Unfinished = Buffer[];

export interface TailRead {
  lines: string[];
  /** Where the next read starts (the start of a line, or inside an overlong one being skipped). */
  offset: number;
  /** Bytes dropped as an overlong line. */
  dropped: number;
  /** The file's size when read (0: no file). */
  size: number;
  /** Bytes read from the file by this read. */
  read: number;
  /** It stopped at its byte budget with more of the file to read. */
  more: boolean;
  /** The line after `offset` read so far, with no newline yet: give it back as `TailOptions.unfinished` with that offset. */
  unfinished?: Unfinished;
}

export interface TailOptions {
  /** A line longer than this is dropped (default `MAX_LINE`). */
  maxLine?: number;
  /** Stop once this many bytes were read (a slice of at most 4 MiB may pass it): the rest waits for the next read. Default: to the end. */
  maxBytes?: number;
  /** What the last read at this offset gave as `unfinished`: read on from its end. */
  unfinished?: Unfinished;
}

/** The bytes an unfinished line holds (0: none). */
export const heldBytes = (pieces: Unfinished | undefined): number => (pieces ? pieces.reduce((n, b) => n + b.length, 0) : 0);

export function readNewLines(file: string, offset: number, opts: TailOptions = {}): TailRead {
  const maxLine = opts.maxLine ?? MAX_LINE;
  const maxBytes = opts.maxBytes ?? Infinity;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { lines: [], offset: 0, dropped: 0, size: 0, read: 0, more: false };
  }
  try {
    const size = fs.fstatSync(fd).size;
    let start = offset > size ? 0 : offset;
    // The unfinished line given back, if the file still holds it (one that shrank is read again).
    let pieces: Buffer[] = start === offset && opts.unfinished ? [...opts.unfinished] : [];
    let held = heldBytes(pieces);
    if (start + held > size) {
      pieces = [];
      held = 0;
    }
    // A start inside a line (the rest of an overlong one): skip to its end.
    let skipping = false;
    if (start > 0 && held === 0) {
      const before = Buffer.alloc(1);
      skipping = fs.readSync(fd, before, 0, 1, start - 1) === 1 && before[0] !== 0x0a;
    }
    let pos = start + held;
    const lines: string[] = [];
    let dropped = 0;
    let read = 0;
    while (pos < size && read < maxBytes) {
      const length = Math.min(MAX_READ, size - pos);
      const buf = Buffer.alloc(length);
      const got = fs.readSync(fd, buf, 0, length, pos);
      if (got <= 0) break;
      read += got;
      pos += got;
      let chunk = buf.subarray(0, got);
      if (skipping) {
        const nl = chunk.indexOf(0x0a);
        if (nl < 0) {
          dropped += got;
          start = pos;
          continue;
        }
        dropped += nl + 1;
        chunk = chunk.subarray(nl + 1);
        start = pos - chunk.length;
        skipping = false;
      }
      let from = 0;
      const first = chunk.indexOf(0x0a);
      // The held line's end: joined with what was read of it.
      if (held && first >= 0) {
        const part = chunk.subarray(0, first);
        if (held + part.length > maxLine) dropped += held + part.length + 1;
        else {
          const line = Buffer.concat([...pieces, part]).toString('utf8');
          if (line.trim()) lines.push(line);
        }
        pieces = [];
        held = 0;
        from = first + 1;
      }
      // The whole lines after it, decoded together (one decode, not one a line: a 4 MiB slice
      // holds tens of thousands of lines); one over the maximum is dropped.
      const last = chunk.lastIndexOf(0x0a);
      if (last >= from) {
        for (const line of chunk.subarray(from, last).toString('utf8').split('\n')) {
          // (A line's bytes are at least its length in UTF-16 units and at most three times it.)
          const bytes = line.length * 3 > maxLine ? Buffer.byteLength(line) : 0;
          if (bytes > maxLine) dropped += bytes + 1;
          else if (line.trim()) lines.push(line);
        }
        from = last + 1;
      }
      if (from > 0) start = pos - chunk.length + from;
      // The line with no newline yet: held (a copy, not the slice), or skipped once over the maximum.
      const rest = chunk.subarray(from);
      if (!rest.length) continue;
      if (held + rest.length > maxLine) {
        dropped += held + rest.length;
        pieces = [];
        held = 0;
        start = pos;
        skipping = true;
        continue;
      }
      pieces.push(from === 0 && rest.length === buf.length ? buf : Buffer.from(rest));
      held += rest.length;
      if (pieces.length > MAX_PIECES) pieces = [Buffer.concat(pieces)];
    }
    return { lines, offset: start, dropped, size, read, more: pos < size, ...(held ? { unfinished: pieces } : {}) };
  } finally {
    fs.closeSync(fd);
  }
}
