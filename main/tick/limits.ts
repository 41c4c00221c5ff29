/**
 * Every number of the Tick host in one place (Tick protocol 3, 3.5, completed by
 * DECISIONS.md), and the one way sizes are measured: the host's own re-encoding of
 * the parsed value (`JSON.stringify`), in UTF-8 bytes.
 */
import type { Outcome } from '../../preload/contract.ts';

export const PROTOCOL = 3;

const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS = {
  /** Requests in flight per Tick, describe and read included; the 9th is queued. */
  inFlight: 8,
  /** One line from the Tick (without its newline): longer is a violation. */
  lineBytes: 8 * MiB,
  /** A tick/describe result: larger fails initialization (or a re-describe). */
  describeBytes: 512 * KiB,
  /** One tick/update: larger is a violation. */
  updateBytes: 512 * KiB,
  /** One result: larger fails that request. */
  resultBytes: 8 * MiB,
  /** Response buffers across a Tick's in-flight calls: over it, the newest call fails. */
  responseBuffersBytes: 64 * MiB,
  /** Each initialization request, and startup to ready in all. */
  initMs: 10_000,
  /** tick/describe and tick/read after initialization (they should answer promptly). */
  queryMs: 10_000,
  /** tick/call: after it, the outcome is unknown. */
  callMs: 60_000,
  /** A person's answer to an approval card. */
  approvalMs: 120_000,
  /** Grace between SIGTERM and SIGKILL when an instance is closed. */
  killGraceMs: 2_000,
  /** State delivered to a client: in all, and per item when several are delivered. */
  deliveryBytes: 16 * KiB,
  deliveryItemBytes: 4 * KiB,
  /** Characters of the view's screen reported with an initialization failure. */
  failureScreenChars: 256,
} as const;

export type Limits = { -readonly [K in keyof typeof LIMITS]: number };

/** Encoded size of a JSON value as the host measures it. */
export function encodedSize(value: unknown): number {
  const s = JSON.stringify(value);
  return s === undefined ? 0 : Buffer.byteLength(s, 'utf8');
}

/** The outcome a tick/call error code means (DECISIONS.md, error codes). */
export function outcomeOfCode(code: number): Outcome {
  switch (code) {
    case -32700:
    case -32600:
    case -32601:
    case -32602:
    case -32004:
    case -32001:
      return 'not_executed';
    default:
      return 'executed';
  }
}

/** The outcome in words, for people and models. */
export function outcomeWords(outcome: Outcome): string {
  switch (outcome) {
    case 'not_executed':
      return 'not executed: the call had no effect';
    case 'executed':
      return 'executed: the call ran (an error after starting may have had a partial effect)';
    case 'unknown':
      return 'unknown: the call may or may not have had an effect; it was not and will not be resent';
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Whether a string is a valid RFC 3339 date-time (section 5.6 of RFC 3339, leap seconds allowed). */
export function isRfc3339(s: unknown): boolean {
  if (typeof s !== 'string') return false;
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 60) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (d > days) return false;
  if (m[8] !== 'Z' && m[8] !== 'z') {
    if (Number(m[10]) > 23 || Number(m[11]) > 59) return false;
  }
  return true;
}

export function isUinteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
