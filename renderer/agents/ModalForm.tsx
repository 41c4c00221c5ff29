/**
 * A modal dialog that is a form: the backdrop (a click outside closes), Escape closes,
 * nothing closes while busy. It takes the keyboard as it opens (the dialog itself, when
 * none of its fields took it: keys no longer go to the terminal behind it, and Escape
 * closes it). The keyboard stays in it while it is open: focus that
 * leaves it (a terminal that asks for it as a pane appears, a stray click) comes back to
 * where it was inside, and Tab and Shift+Tab go round its fields (past the last, the
 * first; never out to the page). Once it has gone, the keyboard it had goes to the focused
 * pane's terminal: the pane a choice in it made or showed (a request for the keyboard made
 * while it was open was taken back by it), else the pane focused before it opened.
 */
import { useEffect, useRef, type FormEvent, type ReactElement, type ReactNode } from 'react';
import { useWindow } from '../context.ts';
import { tabRound } from '../tab-round.ts';

export function ModalForm(props: { className: string; labelledBy: string; describedBy?: string; busy: boolean; onClose(): void; onSubmit(e: FormEvent): void; children: ReactNode }): ReactElement {
  const { busy, onClose } = props;
  const ctx = useWindow();
  const form = useRef<HTMLFormElement>(null);
  const last = useRef<HTMLElement | null>(null);

  useEffect(() => {
    // Its fields' own effects ran first (a child's effects run before its parent's): one of them
    // has the keyboard when it asked for it; else (the usage view; the agents still being listed) the dialog takes it.
    if (form.current && !form.current.contains(document.activeElement)) form.current.focus();
    if (form.current?.contains(document.activeElement)) last.current = document.activeElement as HTMLElement;
    const onFocusIn = (e: FocusEvent): void => {
      const el = form.current;
      const to = e.target as Node | null;
      if (!el || !to) return;
      if (el.contains(to)) {
        last.current = to as HTMLElement;
        return;
      }
      const back = last.current && el.contains(last.current) ? last.current : el.querySelector<HTMLElement>('[tabindex="0"], input, select, textarea, button:not([disabled])');
      back?.focus();
    };
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      // Gone (its element removed with the keyboard in it): the keyboard is nowhere, and the request
      // the focused pane's terminal made meanwhile was spent pulled back here. Asked again now that
      // nothing takes it back. Something that has the keyboard already (another dialog's field) keeps it.
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected) return;
      const s = ctx.store.getState();
      if (s.focused) s.focusPane(s.focused, true);
    };
  }, [ctx]);

  return (
    <div className="td-modal-backdrop" onPointerDown={(e) => { if (e.target === e.currentTarget && !busy) onClose(); }}>
      <form
        ref={form}
        className={`td-modal ${props.className}`}
        role="dialog"
        aria-modal="true"
        tabIndex={-1}
        aria-labelledby={props.labelledBy}
        aria-describedby={props.describedBy}
        onSubmit={props.onSubmit}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            if (!busy) onClose();
          } else {
            tabRound(form.current, e);
          }
        }}
      >
        {props.children}
      </form>
    </div>
  );
}
