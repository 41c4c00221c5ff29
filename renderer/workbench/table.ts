/**
 * The table card's data: cells made displayable and rows sorted by a column.
 * Numbers sort as numbers, everything else as text (locale-aware, numeric-aware);
 * empty cells always sort last. Pure.
 */

export type SortDir = 'asc' | 'desc';
export interface SortState {
  column: number;
  dir: SortDir;
}

/** A cell as text: strings as they are, null/undefined empty, the rest as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** The number a cell stands for, when it is one ("1,204", "3.5%", " 42 " count; "v2" does not). */
export function cellNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim().replace(/,/g, '').replace(/%$/, '');
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function compareCells(a: unknown, b: unknown): number {
  const ae = cellText(a) === '';
  const be = cellText(b) === '';
  if (ae || be) return ae === be ? 0 : ae ? 1 : -1;
  const an = cellNumber(a);
  const bn = cellNumber(b);
  if (an !== undefined && bn !== undefined) return an - bn;
  if (an !== undefined) return -1;
  if (bn !== undefined) return 1;
  return collator.compare(cellText(a), cellText(b));
}

/** Rows sorted by a column (stable; empty cells last in both directions). */
export function sortRows<T extends readonly unknown[]>(rows: readonly T[], sort: SortState | null): T[] {
  const indexed = rows.map((r, i) => ({ r, i }));
  if (!sort) return indexed.map((x) => x.r);
  const sign = sort.dir === 'asc' ? 1 : -1;
  indexed.sort((x, y) => {
    const a = x.r[sort.column];
    const b = y.r[sort.column];
    const ae = cellText(a) === '';
    const be = cellText(b) === '';
    if (ae !== be) return ae ? 1 : -1;
    return sign * compareCells(a, b) || x.i - y.i;
  });
  return indexed.map((x) => x.r);
}

/** A click on a column header: ascending, then descending, then back to arrival order. */
export function nextSort(cur: SortState | null, column: number): SortState | null {
  if (!cur || cur.column !== column) return { column, dir: 'asc' };
  if (cur.dir === 'asc') return { column, dir: 'desc' };
  return null;
}

/** Rows padded or cut to the column count, so a ragged table still lines up. */
export function normaliseRows(columns: readonly unknown[], rows: unknown): unknown[][] {
  if (!Array.isArray(rows)) return [];
  const n = columns.length;
  return rows.map((r) => {
    const row = Array.isArray(r) ? r : [r];
    if (n === 0) return [...row];
    return Array.from({ length: n }, (_, i) => row[i]);
  });
}
