import { useMemo, useState, type ReactNode } from 'react';
import { visibleText } from '../../../common/visible.ts';
import type { CardCtx } from './ActButton.tsx';
import { cellNumber, cellText, nextSort, normaliseRows, sortRows, type SortState } from '../table.ts';
import { arr, obj, str } from './model.ts';

export function TableBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const columns = arr(m.columns).map((c) => (typeof c === 'string' ? c : str(obj(c).name ?? obj(c).title ?? cellText(c))));
  const rows = useMemo(() => normaliseRows(columns, m.rows), [columns.length, m.rows]);
  const [sort, setSort] = useState<SortState | null>(null);
  const sorted = useMemo(() => sortRows(rows, sort), [rows, sort]);
  const numeric = useMemo(
    () => columns.map((_, i) => rows.length > 0 && rows.every((r) => cellText(r[i]) === '' || cellNumber(r[i]) !== undefined)),
    [columns.length, rows],
  );
  return (
    <>
      <div className="tdb-table-wrap" role="region" tabIndex={0} aria-label={`Table ${visibleText(ctx.surface.title)}`}>
        <table className="tdb-table">
          {str(m.caption) && <caption>{str(m.caption)}</caption>}
          <thead>
            <tr>
              {columns.map((c, i) => {
                const dir = sort?.column === i ? sort.dir : undefined;
                return (
                  <th key={i} scope="col" aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'} className={numeric[i] ? 'is-num' : undefined}>
                    {/* Named "path, sortable" (its visible text first); the header's aria-sort says which way it is sorted. */}
                    <button type="button" aria-label={`${c}, sortable`} title={`Sort by ${c}`} onClick={() => setSort(nextSort(sort, i))}>
                      {c}
                      <span className="tdb-sort" aria-hidden="true">{dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}</span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r, ri) => (
              <tr key={ri}>
                {r.map((v, ci) => (
                  <td key={ci} className={numeric[ci] ? 'is-num' : undefined}>{cellText(v)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="tdb-meta">{rows.length} {rows.length === 1 ? 'row' : 'rows'}</p>
    </>
  );
}
