/**
 * Reads the new lines of an append-only JSONL file from a byte offset: whole lines
 * only (a line still being written waits for its newline), garbage lines skipped by the
 * caller, and a file that shrank (truncated or replaced) read again from its start.
 * The caller keeps the offset across restarts, so old lines are never new again.
 */
import fs from 'node:fs';

/** Most bytes read in one go; the rest waits for the next read. */
const MAX_READ = 4 * 1024 * 1024;
/** A line longer than this with no newline yet is dropped as garbage. */
export const MAX_LINE = 1024 * 1024;

export interface TailRead {
  lines: string[];
  /** Where the next read starts. */
  offset: number;
  /** Bytes dropped as an overlong line. */
  dropped: number;
  /** The file's size when read (0: no file). */
  size: number;
}

export interface TailOptions {
  /** A line longer than this is dropped (default `MAX_LINE`): a slice with no line's end is read again longer, up to this. */
  maxLine?: number;
  /** Stop once this many bytes were read (a slice may pass it): the rest waits for the next read. Default: to the end. */
  maxBytes?: number;
}

export function readNewLines(file: string, offset: number, opts: TailOptions = {}): TailRead {
  const maxLine = opts.maxLine ?? MAX_LINE;
  const maxBytes = opts.maxBytes ?? Infinity;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { lines: [], offset: 0, dropped: 0, size: 0 };
  }
  try {
    const size = fs.fstatSync(fd).size;
    let start = offset > size ? 0 : offset;
    const first = start;
    const lines: string[] = [];
    let dropped = 0;
    let slice = MAX_READ;
    while (start < size && start - first < maxBytes) {
      const length = Math.min(slice, size - start);
      const buf = Buffer.alloc(length);
      const got = fs.readSync(fd, buf, 0, length, start);
      if (got <= 0) break;
      const chunk = buf.subarray(0, got);
      const lastNl = chunk.lastIndexOf(0x0a);
      if (lastNl < 0) {
        // no whole line yet: wait, unless it is already too long to be one
        if (got >= maxLine) {
          dropped += got;
          start += got;
          slice = MAX_READ;
          continue;
        }
        // a line longer than the slice, not yet at the file's end: read it again in a longer one
        if (got === length && start + got < size) {
          slice = Math.min(maxLine, slice * 2);
          continue;
        }
        break;
      }
      slice = MAX_READ;
      for (const line of chunk.subarray(0, lastNl).toString('utf8').split('\n')) {
        if (line.trim()) lines.push(line);
      }
      start += lastNl + 1;
      if (got < length) break;
    }
    return { lines, offset: start, dropped, size };
  } finally {
    fs.closeSync(fd);
  }
}
