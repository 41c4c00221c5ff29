/**
 * A floating document over a pane: movable by its title bar, resizable, closed with
 * Escape or its close button. Markdown is rendered and sanitized; images are fitted,
 * with zoom (buttons and Ctrl+wheel); HTML runs in a frame with sandbox="allow-scripts"
 * and never allow-same-origin (the served file carries a sandboxing CSP too), and may
 * post notes (a decision brief); anything else is a download link or, on the desktop,
 * already handed to the system. An agent's transcript (a search hit's) is shown at its entry.
 */
import { visibleText } from '../../common/visible.ts';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { OpenViewer } from '../workbench/store.ts';
import { benchApi, errorText } from '../workbench/runtime.ts';
import { Markdown } from '../workbench/cards/Markdown.tsx';
import { DiagramFrame } from './DiagramFrame.tsx';
import { TranscriptView } from './TranscriptView.tsx';
import { HistoryView } from './HistoryView.tsx';
import { RevealButton, isElectronWindow } from '../agents/RevealButton.tsx';
import { NoteBudget, readNote } from './notes.ts';
import './viewer.css';

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

function initialRect(anchor: HTMLElement | null): Rect {
  const r = anchor?.getBoundingClientRect() ?? { left: 0, top: 0, width: window.innerWidth, height: window.innerHeight };
  const w = Math.max(320, Math.min(r.width - 48, 880));
  const h = Math.max(240, Math.min(r.height - 48, 720));
  return { x: Math.round(r.left + (r.width - w) / 2), y: Math.round(r.top + Math.max(16, (r.height - h) / 2)), w, h };
}

export function DocumentViewer(props: { viewer: OpenViewer; anchor: HTMLElement | null; onClose(): void }): ReactNode {
  const { viewer } = props;
  const [rect, setRect] = useState<Rect>(() => initialRect(props.anchor));
  const win = useRef<HTMLDivElement>(null);
  const drag = useRef<{ dx: number; dy: number } | null>(null);

  // Opening is a person's action: the document takes focus so Escape works at once.
  useLayoutEffect(() => {
    win.current?.focus();
  }, [viewer.surfaceId]);

  // Keep the size the person gave it (CSS resize) in state, so a move keeps it.
  useEffect(() => {
    const el = win.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      setRect((r) => (r.w === el.offsetWidth && r.h === el.offsetHeight ? r : { ...r, w: el.offsetWidth, h: el.offsetHeight }));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const onTitleDown = (e: React.PointerEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).closest('button,a')) return;
    drag.current = { dx: e.clientX - rect.x, dy: e.clientY - rect.y };
    e.currentTarget.setPointerCapture(e.pointerId);
  };
  const onTitleMove = (e: React.PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    const x = Math.min(Math.max(e.clientX - d.dx, 40 - rect.w), window.innerWidth - 40);
    const y = Math.min(Math.max(e.clientY - d.dy, 0), window.innerHeight - 32);
    setRect((r) => ({ ...r, x, y }));
  };
  const onTitleUp = (e: React.PointerEvent<HTMLDivElement>) => {
    drag.current = null;
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  };

  const v = viewer.view;
  const kindLabel = viewer.diagram ? 'diagram' : viewer.transcript ? 'transcript' : viewer.history ? 'history' : v.kind;
  return createPortal(
    <div
      ref={win}
      className="td-viewer"
      role="dialog"
      aria-label={`Document: ${viewer.title}`}
      data-view={kindLabel}
      tabIndex={-1}
      style={{ left: rect.x, top: rect.y, width: rect.w, height: rect.h }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          props.onClose();
        }
      }}
    >
      <div className="tdv-title" onPointerDown={onTitleDown} onPointerMove={onTitleMove} onPointerUp={onTitleUp} onPointerCancel={onTitleUp}>
        <span className="tdv-kind">{kindLabel}</span>
        <span className="tdv-name" title={visibleText(v.name)}>{viewer.diagram || viewer.transcript || viewer.history ? viewer.title : visibleText(v.name) || viewer.title}</span>
        <span className="tdv-spacer" />
        <button type="button" className="tdv-icon" aria-label="Close the document" title="Close (Escape)" onClick={props.onClose}>×</button>
      </div>
      <div className="tdv-body">
        {viewer.diagram ? (
          <DiagramFrame format={viewer.diagram.format} source={viewer.diagram.source} title={viewer.title} fill />
        ) : viewer.transcript ? (
          <TranscriptView transcript={viewer.transcript} />
        ) : viewer.history ? (
          <HistoryView history={viewer.history} />
        ) : v.kind === 'markdown' ? (
          <div className="tdv-doc"><Markdown text={v.text} /></div>
        ) : v.kind === 'image' ? (
          <ImageView url={v.url} name={v.name} />
        ) : v.kind === 'html' ? (
          <HtmlView url={v.url} name={v.name} paneId={viewer.paneId} surfaceId={viewer.surfaceId} />
        ) : v.kind === 'external' ? (
          <div className="tdv-message">
            <p>{v.message}</p>
            {v.url && /^https?:\/\//i.test(v.url) ? (
              <a className="tdb-btn tdb-primary" href={v.url} target="_blank" rel="noopener noreferrer" aria-label={`Open ${v.url} in the browser`}>Open in the browser</a>
            ) : v.url && isElectronWindow() ? (
              <RevealButton paneId={viewer.paneId} surfaceId={viewer.surfaceId} name={v.name} />
            ) : v.url ? (
              <a className="tdb-btn tdb-primary" href={v.url} download={v.name} aria-label={`Download ${v.name}`}>Download {v.name}</a>
            ) : null}
          </div>
        ) : (
          <div className="tdv-message is-missing"><p>{v.message}</p></div>
        )}
      </div>
    </div>,
    document.body,
  );
}

const ZOOMS = [0.1, 0.25, 0.33, 0.5, 0.67, 0.75, 0.9, 1, 1.25, 1.5, 2, 3, 4, 6, 8];

function ImageView({ url, name }: { url: string; name: string }): ReactNode {
  const [zoom, setZoom] = useState<number | 'fit'>('fit');
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [failed, setFailed] = useState(false);
  const box = useRef<HTMLDivElement>(null);

  const fitScale = useCallback(() => {
    const el = box.current;
    if (!el || !natural) return 1;
    return Math.min(1, el.clientWidth / natural.w, el.clientHeight / natural.h);
  }, [natural]);
  const scale = zoom === 'fit' ? fitScale() : zoom;
  const step = useCallback((dir: 1 | -1) => {
    const cur = zoom === 'fit' ? fitScale() : zoom;
    const next = dir > 0 ? ZOOMS.find((z) => z > cur + 1e-6) ?? ZOOMS[ZOOMS.length - 1]! : [...ZOOMS].reverse().find((z) => z < cur - 1e-6) ?? ZOOMS[0]!;
    setZoom(next);
  }, [zoom, fitScale]);

  // Ctrl+wheel zooms (a non-passive listener, so the page itself does not zoom).
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      step(e.deltaY < 0 ? 1 : -1);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [step]);

  return (
    <div className="tdv-image">
      <div className="tdv-tools" role="toolbar" aria-label="Zoom">
        <button type="button" className="tdv-icon" aria-label="Zoom out" title="Zoom out (Ctrl+wheel)" onClick={() => step(-1)}>−</button>
        <span className="tdv-zoom" aria-live="polite" data-zoom={Math.round(scale * 100)}>{Math.round(scale * 100)}%</span>
        <button type="button" className="tdv-icon" aria-label="Zoom in" title="Zoom in (Ctrl+wheel)" onClick={() => step(1)}>+</button>
        <button type="button" className={`tdv-text${zoom === 'fit' ? ' is-on' : ''}`} aria-label="Fit to window" aria-pressed={zoom === 'fit'} onClick={() => setZoom('fit')}>Fit</button>
        <button type="button" className={`tdv-text${zoom === 1 ? ' is-on' : ''}`} aria-label="1:1 (actual size)" aria-pressed={zoom === 1} onClick={() => setZoom(1)}>1:1</button>
        {natural && <span className="tdv-dim">{natural.w} × {natural.h}</span>}
      </div>
      <div ref={box} className={`tdv-canvas${zoom === 'fit' ? ' is-fit' : ''}`}>
        {failed ? (
          <p className="tdv-message">The image could not be loaded; it may have moved or be unreadable.</p>
        ) : (
          <img
            src={url}
            alt={name}
            draggable={false}
            onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
            onError={() => setFailed(true)}
            style={natural ? { width: Math.round(natural.w * scale), height: Math.round(natural.h * scale) } : { maxWidth: '100%', maxHeight: '100%' }}
          />
        )}
      </div>
    </div>
  );
}

function HtmlView(props: { url: string; name: string; paneId: string; surfaceId: string }): ReactNode {
  const frame = useRef<HTMLIFrameElement>(null);
  const budget = useRef(new NoteBudget());
  const [status, setStatus] = useState<{ text: string; tone: 'ok' | 'bad' } | null>(null);

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      // Only this frame's own window may speak to us; anything else is ignored.
      if (!frame.current || e.source !== frame.current.contentWindow) return;
      const note = readNote(e.data);
      if (!note) return;
      if (!note.ok) {
        setStatus({ text: note.error, tone: 'bad' });
        return;
      }
      if (!budget.current.take(Date.now())) {
        setStatus({ text: 'Too many notes from this document in a minute; that one was not sent.', tone: 'bad' });
        return;
      }
      benchApi()
        .invoke('surface.act', { paneId: props.paneId, surfaceId: props.surfaceId, action: 'note', comment: note.text })
        .then(
          (r) => setStatus(r.ok ? { text: `Note sent: ${r.record.line ?? note.text}`, tone: 'ok' } : { text: r.error, tone: 'bad' }),
          (err) => setStatus({ text: errorText(err), tone: 'bad' }),
        );
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [props.paneId, props.surfaceId]);

  return (
    <div className="tdv-html">
      <iframe
        ref={frame}
        className="tdv-frame"
        title={props.name}
        src={props.url}
        sandbox="allow-scripts"
        referrerPolicy="no-referrer"
        allow=""
      />
      {status && (
        <div className={`tdv-status is-${status.tone}`} role="status">
          <span>{status.text}</span>
          <button type="button" className="tdv-icon" aria-label="Hide the message" onClick={() => setStatus(null)}>×</button>
        </div>
      )}
    </div>
  );
}
