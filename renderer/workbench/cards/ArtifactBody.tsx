import { useEffect, useState, type ReactNode } from 'react';
import { visibleText } from '../../../common/visible.ts';
import { ActButton, type CardCtx } from './ActButton.tsx';
import { benchApi } from '../runtime.ts';
import { Markdown } from './Markdown.tsx';
import { str } from './model.ts';
import { baseName, shortLocation } from '../locations.ts';

/** What the last look-up found, per surface version (shelf switches remount cards). */
const lookups = new Map<string, null>();

export function ArtifactBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const location = str(m.location);
  const [missing, setMissing] = useState<string | null>(null);
  // A local file is looked up (not opened) so a missing one shows as missing at once.
  const local = location.startsWith('/') || location.toLowerCase().startsWith('file:');
  useEffect(() => {
    if (!local) return;
    let live = true;
    const key = `${ctx.paneId}/${ctx.surface.id}@${ctx.surface.updatedAt}`;
    const known = lookups.get(key);
    if (known === null) {
      setMissing(known);
      return;
    }
    benchApi()
      .invoke('artifact.open', { paneId: ctx.paneId, surfaceId: ctx.surface.id })
      .then((v) => {
        const m = v.kind === 'missing' ? v.message : null;
        if (m === null) lookups.set(key, m); // a missing file may yet be written: look again next time
        if (live) setMissing(m);
      }, () => {});
    return () => { live = false; };
  }, [ctx.paneId, ctx.surface.id, ctx.surface.updatedAt, local]);
  return (
    <>
      <div className="tdb-file">
        <span className="tdb-file-icon" aria-hidden="true">{fileGlyph(str(m.media_type), location)}</span>
        <div className="tdb-file-text">
          <span className="tdb-file-name">{baseName(location)}</span>
          <span className="tdb-file-meta">
            {str(m.media_type) && <span>{str(m.media_type)}</span>}
            <span className="tdb-file-loc" title={location}>{shortLocation(location)}</span>
          </span>
        </div>
        {missing && <span className="tdb-badge tdb-warn" title={missing}>missing</span>}
      </div>
      {missing && <p className="tdb-reason tdb-missing">{missing}</p>}
      {str(m.summary) && <Markdown text={str(m.summary)} className="tdb-body" />}
      <div className="tdb-actions">
        {ctx.accepts('open') && (
          <button type="button" className="tdb-btn" aria-label={`Open ${baseName(location)}`} title="Open (o)" onClick={() => ctx.open()}>
            Open
          </button>
        )}
        <span className="tdb-spacer" />
        <ActButton ctx={ctx} action="approve" label="Approve" ariaLabel={`Approve ${visibleText(ctx.surface.title)}`} tone="primary" title="Approve (a)" />
        <ActButton ctx={ctx} action="reject" label="Reject" ariaLabel={`Reject ${visibleText(ctx.surface.title)}`} tone="danger" title="Reject (r)" />
      </div>
    </>
  );
}

function fileGlyph(type: string, location: string): string {
  const t = type.toLowerCase();
  const ext = location.toLowerCase().replace(/[?#].*$/, '').split('.').pop() ?? '';
  if (t.startsWith('image/') || ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg'].includes(ext)) return 'IMG';
  if (t.includes('html') || ext === 'html' || ext === 'htm') return 'HTML';
  if (t.includes('markdown') || ext === 'md') return 'MD';
  if (t.includes('pdf') || ext === 'pdf') return 'PDF';
  return (ext || 'FILE').slice(0, 4).toUpperCase();
}
