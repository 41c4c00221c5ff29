/**
 * One card on the bench: its frame (kind, title, time, dismiss), the kind's own body,
 * what was sent and when, and the composer whose comment travels with the action.
 */
import { useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState, type ReactNode, type Ref } from 'react';
import type { Surface } from '../../preload/contract.ts';
import { COMMENT_LIMIT, clock, isBlocked, recentRecords, recordText, utf8Length } from './acting.ts';
import { benchApi, benchStore, errorText } from './runtime.ts';
import { visibleText } from '../../common/visible.ts';
import type { CardCtx } from './cards/ActButton.tsx';
import { KindBody } from './cards/KindBody.tsx';
import { stateLine } from './cards/answerState.ts';
import { currentRecords } from '../../common/revisions.ts';


/** What the bench's keyboard can ask a card to do. */
export interface CardHandle {
  approve(): void;
  reject(): void;
  comment(): void;
  open(): void;
  dismiss(): void;
}

/** The action 'a' and 'r' take on each kind, when it offers one. */
const APPROVE: Partial<Record<string, string>> = { decision: 'approve', change: 'approve', artifact: 'approve', response: 'ack' };
const REJECT: Partial<Record<string, string>> = { decision: 'reject', change: 'reject', artifact: 'reject' };

export const KIND_LABEL: Record<string, string> = {
  response: 'Reply', decision: 'Decision', question: 'Question', change: 'Change', artifact: 'File',
  table: 'Table', diagram: 'Diagram', comment: 'Note', unclassified: 'Unsorted',
};

export function Card(props: {
  paneId: string;
  surface: Surface;
  actions: readonly string[];
  selected: boolean;
  onSelect(): void;
  handleRef: Ref<CardHandle>;
}): ReactNode {
  const { paneId, surface: s, actions, selected } = props;
  // Control characters in an agent's title are shown as Control Pictures (and named so).
  const title = visibleText(s.title);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [unlocked, setUnlocked] = useState(false);
  const composer = useRef<HTMLTextAreaElement>(null);
  const cardEl = useRef<HTMLElement>(null);
  const accepts = useCallback((a: string) => actions.includes(a), [actions]);
  // A question or permission settled anywhere (or one the bench cannot answer) takes no answer here.
  const actionable = actions.some((a) => a !== 'dismiss') && (stateLine(s.model)?.open ?? true);
  const tooLong = utf8Length(comment) > COMMENT_LIMIT;

  const act = useCallback((action: string, target?: string) => {
    if (busy) return;
    if (tooLong) {
      setError(`The comment is longer than 4 KiB; shorten it and send again.`);
      return;
    }
    const text = comment.trim();
    if (action === 'comment' && !text) {
      setError('Write a comment first, then send it.');
      composer.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    benchApi()
      .invoke('surface.act', { paneId, surfaceId: s.id, action, ...(target !== undefined ? { target } : {}), ...(text ? { comment: text } : {}) })
      .then((res) => {
        if (res.ok) {
          benchStore().getState().recorded(paneId, s.id, res.record);
          setComment('');
          setUnlocked(false);
        } else {
          setError(res.error);
        }
      }, (err) => setError(errorText(err)))
      .finally(() => setBusy(false));
  }, [busy, comment, paneId, s.id, tooLong]);

  const keepNote = useCallback(() => {
    const text = comment.trim();
    if (!text) {
      setError('Write the note first, then keep it.');
      return;
    }
    setBusy(true);
    benchApi()
      .invoke('surface.comment', { paneId, text, on: s.id })
      .then(() => setComment(''), (err) => setError(errorText(err)))
      .finally(() => setBusy(false));
  }, [comment, paneId, s.id]);

  const open = useCallback(() => {
    if (s.kind === 'diagram') {
      benchStore().getState().openViewer({
        paneId, surfaceId: s.id, title,
        view: { kind: 'markdown', name: title, text: '' },
        diagram: { format: String(s.model.format ?? ''), source: String(s.model.source ?? '') },
      });
      return;
    }
    setError(null);
    benchApi()
      .invoke('artifact.open', { paneId, surfaceId: s.id })
      .then((view) => benchStore().getState().openViewer({ paneId, surfaceId: s.id, title, view }), (err) => setError(errorText(err)));
  }, [paneId, s, title]);

  const blocked = useCallback(
    (action: string, target?: string) => busy || (!unlocked && isBlocked(currentRecords(s), action, target)),
    [busy, unlocked, s],
  );

  const ctx: CardCtx = useMemo(() => ({ paneId, surface: s, accepts, act, blocked, busy, open }), [paneId, s, accepts, act, blocked, busy, open]);

  useImperativeHandle(props.handleRef, () => ({
    approve() {
      const a = APPROVE[s.kind];
      if (a && accepts(a) && !blocked(a) && (s.kind !== 'decision' || hasRecommended(s))) act(a);
    },
    reject() {
      const a = REJECT[s.kind];
      if (a && accepts(a) && !blocked(a)) act(a);
    },
    comment() {
      composer.current?.focus();
    },
    open() {
      if (accepts('open')) open();
    },
    dismiss() {
      act('dismiss');
    },
  }), [s, accepts, blocked, act, open]);

  const onComposerKey = (e: React.KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
      e.preventDefault();
      e.stopPropagation();
      const freeText = s.kind === 'question' && s.model.free_text === true && accepts('answer');
      if (freeText) act('answer');
      else if (accepts('comment')) act('comment');
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      cardEl.current?.focus();
    }
  };

  // Grow the composer with its text, up to a few lines.
  useEffect(() => {
    const el = composer.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 120)}px`;
  }, [comment]);

  const records = recentRecords(s);
  const settled = currentRecords(s).some((r) => r.action !== 'comment' && r.action !== 'open' && r.action !== 'note');
  const when = s.updatedAt !== s.arrivedAt ? `updated ${clock(s.updatedAt)}` : clock(s.arrivedAt);

  return (
    <article
      ref={cardEl}
      className={`tdb-card tdb-kind-${s.kind}${selected ? ' is-selected' : ''}${s.seen ? '' : ' is-unseen'}`}
      data-surface-id={s.id}
      data-kind={s.kind}
      tabIndex={selected ? 0 : -1}
      aria-label={`${KIND_LABEL[s.kind] ?? s.kind}: ${title}${s.seen ? '' : ', unseen'}`}
      aria-current={selected ? 'true' : undefined}
      onMouseDown={props.onSelect}
      onFocus={(e) => {
        if (e.target === e.currentTarget || !selected) props.onSelect();
      }}
    >
      <header className="tdb-card-head">
        <span className="tdb-kind">{KIND_LABEL[s.kind] ?? s.kind}</span>
        {!s.seen && <span className="tdb-dot" aria-hidden="true" />}
        <h3 className="tdb-title" title={title}>{title}</h3>
        <time className="tdb-time" dateTime={s.updatedAt} title={new Date(s.updatedAt).toString()}>{when}</time>
        <button type="button" className="tdb-icon" aria-label={`Dismiss ${title}`} title="Dismiss (x)" disabled={busy} onClick={() => act('dismiss')}>
          ×
        </button>
      </header>
      <div className="tdb-card-body">
        <KindBody ctx={ctx} />
      </div>
      {records.length > 0 && (
        <div className="tdb-sent" role="group" aria-label="Sent">
          {records.map((r, i) => (
            <div className="tdb-sent-row" key={`${r.at}-${i}`}>
              <span className="tdb-sent-mark" aria-hidden="true">↳</span>
              <code className="tdb-sent-line" title={recordText(r)}>{recordText(r)}</code>
              <time className="tdb-sent-at" dateTime={r.at}>{clock(r.at)}</time>
            </div>
          ))}
          {settled && !unlocked && (
            <button type="button" className="tdb-link" aria-label={`Act again on ${title}`} onClick={() => {
              if (window.confirm(`"${title}" was answered already. Act on it again?`)) setUnlocked(true);
            }}>
              Act again…
            </button>
          )}
        </div>
      )}
      {error && <p className="tdb-error" role="alert">{error}</p>}
      {actionable && (
        <div className="tdb-composer">
          <textarea
            ref={composer}
            rows={1}
            value={comment}
            aria-label={`Comment on ${title}`}
            placeholder={s.kind === 'question' && s.model.free_text === true ? 'Answer, or a comment for your choice…' : 'Comment — travels with your action'}
            onChange={(e) => setComment(e.target.value)}
            onKeyDown={onComposerKey}
            className={tooLong ? 'is-invalid' : undefined}
          />
          {comment.trim() !== '' && (
            <div className="tdb-composer-actions">
              {tooLong && <span className="tdb-limit">{utf8Length(comment)} / {COMMENT_LIMIT} bytes</span>}
              <button type="button" className="tdb-btn tdb-quiet" aria-label={`Keep as a private note on ${title}`} title="A note for yourself; the agent never sees it" disabled={busy} onClick={keepNote}>
                Keep as note
              </button>
              {s.kind === 'question' && s.model.free_text === true && accepts('answer') ? (
                <button type="button" className="tdb-btn" aria-label={`Send answer to ${title}`} disabled={blocked('answer')} onClick={() => act('answer')}>
                  Answer ↵
                </button>
              ) : accepts('comment') ? (
                <button type="button" className="tdb-btn" aria-label={`Send comment on ${title}`} disabled={busy} onClick={() => act('comment')}>
                  Send ↵
                </button>
              ) : null}
            </div>
          )}
        </div>
      )}
    </article>
  );
}

function hasRecommended(s: Surface): boolean {
  const options = Array.isArray(s.model.options) ? s.model.options : [];
  return options.some((o) => typeof o === 'object' && o !== null && (o as { recommended?: unknown }).recommended === true);
}
