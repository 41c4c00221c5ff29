/**
 * Trimming state for delivery to a client (Tick protocol 3, 6.4). Deterministic and pure.
 *
 * One knob `c` trims everything at once: every array keeps at most `c` items (a declared
 * series keeps its newest end; any other array keeps its beginning and its end), every
 * string at most 8·c characters, every object at most 4·c keys (in their order). The
 * largest `c` whose result fits the budget is found by binary search, then checked. The
 * result names each cut by JSON Pointer, with how much went.
 */
import type { StateSeries } from './describe.ts';
import { encodedSize, LIMITS } from './limits.ts';

export interface Cut {
  /** JSON Pointer (RFC 6901) into the delivered data. */
  path: string;
  /** What was cut: the oldest items of a series, the middle of another array, the end of a string, the last keys of an object. */
  what: 'oldest-items' | 'middle-items' | 'end-of-string' | 'last-keys';
  /** How many items, characters or keys went. */
  removed: number;
  /** How many stayed. */
  kept: number;
}

export interface Trimmed {
  data: unknown;
  trimmed: boolean;
  /** Each cut, first 16 in document order. */
  cuts: Cut[];
  /** Cuts beyond the first 16, counted only. */
  moreCuts: number;
  /** Encoded size of the whole delivery item ({data, trimmed, cuts, moreCuts}). */
  bytes: number;
}

const MAX_CUTS = 16;
const ELLIPSIS = '…';

function escapeToken(t: string): string {
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

function largest(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((m: number, v) => Math.max(m, largest(v)), value.length);
  if (typeof value === 'string') return Math.ceil(value.length / 8);
  if (value && typeof value === 'object') {
    const vals = Object.values(value);
    return vals.reduce((m: number, v) => Math.max(m, largest(v)), Math.ceil(vals.length / 4));
  }
  return 0;
}

function cutString(s: string, keep: number): string {
  let head = s.slice(0, keep);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1); // never split a surrogate pair
  return head + ELLIPSIS;
}

function apply(value: unknown, c: number, series: Map<string, 'first' | 'last'>, pointer: string, cuts: Cut[]): unknown {
  if (typeof value === 'string') {
    const keep = 8 * c;
    if (value.length <= keep) return value;
    const out = cutString(value, keep);
    cuts.push({ path: pointer, what: 'end-of-string', removed: value.length - (out.length - ELLIPSIS.length), kept: out.length - ELLIPSIS.length });
    return out;
  }
  if (Array.isArray(value)) {
    let items: Array<[number, unknown]> = value.map((v, i) => [i, v]);
    if (value.length > c) {
      const newest = series.get(pointer);
      if (newest === 'last') items = items.slice(value.length - c);
      else if (newest === 'first') items = items.slice(0, c);
      else {
        const head = Math.ceil(c / 2);
        items = [...items.slice(0, head), ...items.slice(value.length - (c - head))];
      }
      cuts.push({ path: pointer, what: newest ? 'oldest-items' : 'middle-items', removed: value.length - c, kept: c });
    }
    // Pointers inside a kept item name its index in the delivered (trimmed) array.
    return items.map(([, v], j) => apply(v, c, series, `${pointer}/${j}`, cuts));
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    const keep = 4 * c;
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries.slice(0, keep)) out[k] = apply(v, c, series, `${pointer}/${escapeToken(k)}`, cuts);
    if (entries.length > keep) cuts.push({ path: pointer, what: 'last-keys', removed: entries.length - keep, kept: keep });
    return out;
  }
  return value;
}

function build(data: unknown, c: number, series: Map<string, 'first' | 'last'>): Trimmed {
  const cuts: Cut[] = [];
  const out = apply(data, c, series, '', cuts);
  const item = { data: out, trimmed: cuts.length > 0, cuts: cuts.slice(0, MAX_CUTS), moreCuts: Math.max(0, cuts.length - MAX_CUTS) };
  return { ...item, bytes: encodedSize(item) };
}

/** Trim one state's data to `budget` bytes (the whole delivery item counted). */
export function trimState(data: unknown, series: readonly StateSeries[] = [], budget: number = LIMITS.deliveryBytes): Trimmed {
  const bySeries = new Map(series.map((s) => [s.path, s.newest] as const));
  const whole = build(data, Infinity, bySeries);
  if (whole.bytes <= budget) return whole;
  let lo = 0;
  let hi = largest(data);
  // Binary search for the largest c that fits; size grows with c.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (build(data, mid, bySeries).bytes <= budget) lo = mid;
    else hi = mid - 1;
  }
  for (let c = lo; c >= 0; c--) {
    const t = build(data, c, bySeries);
    if (t.bytes <= budget) return t;
  }
  // Even fully emptied it does not fit (the budget is tiny): deliver nothing but the note.
  const item = { data: null, trimmed: true, cuts: [{ path: '', what: 'last-keys' as const, removed: 1, kept: 0 }], moreCuts: 0 };
  return { ...item, bytes: encodedSize(item) };
}

/** The budget per item: 16 KiB for one, 4 KiB each when several (less when more than four). */
export function itemBudget(items: number): number {
  if (items <= 1) return LIMITS.deliveryBytes;
  return Math.min(LIMITS.deliveryItemBytes, Math.floor(LIMITS.deliveryBytes / items));
}

/** Trim several states delivered together: each within its item budget, all within 16 KiB. */
export function trimForDelivery(items: ReadonlyArray<{ data: unknown; series?: readonly StateSeries[] }>): Trimmed[] {
  const budget = itemBudget(items.length);
  return items.map((i) => trimState(i.data, i.series ?? [], budget));
}
