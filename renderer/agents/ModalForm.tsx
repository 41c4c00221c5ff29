/**
 * A modal dialog that is a form: the backdrop (a click outside closes), Escape closes,
 * nothing closes while busy. The keyboard stays in it while it is open: focus that
 * leaves it (a terminal that asks for it as a pane appears, a stray click) comes back to
 * where it was inside.
 */
import { useEffect, useRef, type FormEvent, type ReactElement, type ReactNode } from 'react';

export function ModalForm(props: { className: string; labelledBy: string; describedBy?: string; busy: boolean; onClose(): void; onSubmit(e: FormEvent): void; children: ReactNode }): ReactElement {
  const { busy, onClose } = props;
  const form = useRef<HTMLFormElement>(null);
  const last = useRef<HTMLElement | null>(null);

  useEffect(() => {
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
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);

  return (
    <div className="td-modal-backdrop" onPointerDown={(e) => { if (e.target === e.currentTarget && !busy) onClose(); }}>
      <form
        ref={form}
        className={`td-modal ${props.className}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={props.labelledBy}
        aria-describedby={props.describedBy}
        onSubmit={props.onSubmit}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            if (!busy) onClose();
          }
        }}
      >
        {props.children}
      </form>
    </div>
  );
}
