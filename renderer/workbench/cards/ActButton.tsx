/**
 * What a card gives its kind's body (CardCtx), and the button that takes one action:
 * shared by Card.tsx and every body in cards/, in a file of their own so the bodies
 * never import the card that imports them.
 */
import type { ReactNode } from 'react';
import type { Surface } from '../../../preload/contract.ts';
import { currentRecords } from '../../../common/revisions.ts';

export interface CardCtx {
  paneId: string;
  surface: Surface;
  accepts(action: string): boolean;
  /** Take an action; the composer's comment travels with it. */
  act(action: string, target?: string): void;
  /** Whether this action's button is disabled (taken already, or busy). */
  blocked(action: string, target?: string): boolean;
  busy: boolean;
  /** Show the artifact (or the diagram) in a floating document. */
  open(): void;
}

/** A button that takes one action, disabled once that action is settled. */
export function ActButton(props: {
  ctx: CardCtx;
  action: string;
  target?: string;
  label: ReactNode;
  ariaLabel: string;
  tone?: 'primary' | 'danger' | 'quiet';
  title?: string;
}): ReactNode {
  const { ctx, action, target } = props;
  if (!ctx.accepts(action)) return null;
  const taken = currentRecords(ctx.surface).some((r) => r.action === action && (r.target ?? '') === (target ?? ''));
  return (
    <button
      type="button"
      className={`tdb-btn${props.tone ? ` tdb-${props.tone}` : ''}${taken ? ' is-taken' : ''}`}
      aria-label={props.ariaLabel}
      aria-pressed={taken ? 'true' : undefined}
      title={props.title}
      disabled={ctx.blocked(action, target)}
      onClick={(e) => {
        e.stopPropagation();
        ctx.act(action, target);
      }}
    >
      {taken && <span aria-hidden="true">✓ </span>}
      {props.label}
    </button>
  );
}
