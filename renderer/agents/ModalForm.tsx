/** A modal dialog that is a form: the backdrop (a click outside closes), Escape closes, nothing closes while busy. */
import type { FormEvent, ReactElement, ReactNode } from 'react';

export function ModalForm(props: { className: string; labelledBy: string; describedBy?: string; busy: boolean; onClose(): void; onSubmit(e: FormEvent): void; children: ReactNode }): ReactElement {
  const { busy, onClose } = props;
  return (
    <div className="td-modal-backdrop" onPointerDown={(e) => { if (e.target === e.currentTarget && !busy) onClose(); }}>
      <form
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
