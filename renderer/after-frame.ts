/** The longest afterFrame waits for a frame (a hidden page draws none). */
export const FRAME_WAIT_MS = 50;

/** The page's requestAnimationFrame, where it has one. */
export const pageFrame: ((f: () => void) => void) | undefined =
  typeof globalThis.requestAnimationFrame === 'function' ? (f) => void globalThis.requestAnimationFrame(f) : undefined;

/**
 * `go` in a task of its own once the page's next frame is out (its rendering done: the layout of
 * what was just committed, its paint), or FRAME_WAIT_MS from now when no frame comes (`frame`
 * undefined: none is waited for); once. `later` is setTimeout unless given (a test's hand-run clock).
 */
export function afterFrame(go: () => void, frame: ((f: () => void) => void) | undefined, later: (f: () => void, ms: number) => void = (f, ms) => void setTimeout(f, ms)): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    go();
  };
  frame?.(() => later(once, 0));
  later(once, FRAME_WAIT_MS);
}
