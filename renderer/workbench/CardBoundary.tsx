/**
 * One card that fails to draw must not take the bench (or the window) with it: this
 * boundary shows what went wrong in its place, and tries again when the surface changes.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Changes when the surface changes: a new version gets a new try. */
  version: string;
  title: string;
  children: ReactNode;
}

interface State {
  error: string | null;
  version: string;
}

export class CardBoundary extends Component<Props, State> {
  override state: State = { error: null, version: '' };

  static getDerivedStateFromError(err: unknown): Partial<State> {
    return { error: err instanceof Error ? err.message : String(err) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.version !== state.version ? { version: props.version, error: null } : null;
  }

  override componentDidCatch(err: unknown, info: ErrorInfo): void {
    console.error('a bench card failed to draw', err, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.error === null) return this.props.children;
    return (
      <article className="tdb-card" role="alert">
        <header className="tdb-card-head"><span className="tdb-kind">Card</span><h3 className="tdb-title">{this.props.title}</h3></header>
        <div className="tdb-card-body">
          <p className="tdb-reason">This card could not be drawn ({this.state.error}); ask the agent to send it again.</p>
        </div>
      </article>
    );
  }
}
