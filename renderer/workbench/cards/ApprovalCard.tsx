/**
 * A Tick tool call waiting for a person: tool, arguments, description, revision,
 * and Approve / Refuse ('approval.answer'). Once answered it stays, showing the answer.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { ApprovalRequest } from '../../../preload/contract.ts';
import { clock } from '../acting.ts';
import { benchApi, errorText } from '../runtime.ts';

export interface ApprovalHandle {
  approve(): void;
  reject(): void;
}

export function pretty(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

export function ApprovalCard(props: {
  approval: ApprovalRequest;
  selected: boolean;
  onSelect(): void;
  handleRef: (h: ApprovalHandle | null) => void;
  /** Take an answered approval off the bench (this window only). */
  onHide(): void;
}): ReactNode {
  const a = props.approval;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pending = a.state === 'pending';
  const answer = (approve: boolean) => {
    if (!pending || busy) return;
    setBusy(true);
    setError(null);
    benchApi()
      .invoke('approval.answer', { approvalId: a.id, approve })
      .then((r) => { if (!r.ok) setError(r.error ?? 'The answer was not taken; try again.'); }, (err) => setError(errorText(err)))
      .finally(() => setBusy(false));
  };
  useEffect(() => {
    props.handleRef({ approve: () => answer(true), reject: () => answer(false) });
    return () => props.handleRef(null);
  });
  const stateLabel = a.state === 'approved' ? 'approved' : a.state === 'refused' ? 'refused' : a.state === 'timed_out' ? 'timed out' : null;
  return (
    <article
      className={`tdb-card tdb-kind-approval${props.selected ? ' is-selected' : ''}`}
      data-approval-id={a.id}
      data-kind="approval"
      tabIndex={props.selected ? 0 : -1}
      aria-label={`Approval: ${a.tool}`}
      aria-current={props.selected ? 'true' : undefined}
      onMouseDown={props.onSelect}
      onFocus={props.onSelect}
    >
      <header className="tdb-card-head">
        <span className="tdb-kind">Approval</span>
        <h3 className="tdb-title"><code>{a.tool}</code></h3>
        <time className="tdb-time" dateTime={a.requestedAt}>{clock(a.requestedAt)}</time>
      </header>
      <div className="tdb-card-body">
        {a.description && <p className="tdb-layman tdb-layman-sm">{a.description}</p>}
        <p className="tdb-meta">
          <span>{a.instanceId}</span>{a.revision && <> · revision <code>{a.revision}</code></>}
          {pending && <> · waits {a.timeoutSeconds} s</>}
        </p>
        <pre className="tdb-args" aria-label="Arguments">{pretty(a.args)}</pre>
        <div className="tdb-actions">
          {stateLabel && <span className={`tdb-badge ${a.state === 'approved' ? 'tdb-ok' : 'tdb-bad'}`}>{stateLabel}</span>}
          <span className="tdb-spacer" />
          {pending ? (
            <>
              <button type="button" className="tdb-btn tdb-primary" aria-label={`Approve ${a.tool}`} title="Approve (a)" disabled={busy} onClick={() => answer(true)}>
                Approve
              </button>
              <button type="button" className="tdb-btn tdb-danger" aria-label={`Refuse ${a.tool}`} title="Refuse (r)" disabled={busy} onClick={() => answer(false)}>
                Refuse
              </button>
            </>
          ) : (
            <button type="button" className="tdb-btn tdb-quiet" aria-label={`Put away the answered approval of ${a.tool}`} onClick={props.onHide}>
              Put away
            </button>
          )}
        </div>
        {error && <p className="tdb-error" role="alert">{error}</p>}
      </div>
    </article>
  );
}
