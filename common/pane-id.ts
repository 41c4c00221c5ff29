/**
 * Qualified pane ids (docs/design/remote.md, "One window, many machines"): a pane of
 * machine `build-box` is `build-box/p3k9…` in the home layout and in the window; a home
 * pane keeps its plain id (`/` never occurs in a pane id). Both sides use these. Pure.
 */

/** A machine's name (main/machines/reasons.ts machineName), a slash, a pane id. */
const QUALIFIED = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}\/[A-Za-z0-9_-]{1,64}$/;

export function splitPaneId(id: string): { machine?: string; local: string } {
  const at = id.indexOf('/');
  return at > 0 ? { machine: id.slice(0, at), local: id.slice(at + 1) } : { local: id };
}

export function qualify(machine: string, id: string): string {
  return `${machine}/${id}`;
}

/** Whether `id` is a well-formed pane id of another machine. */
export function isQualifiedPaneId(id: unknown): id is string {
  return typeof id === 'string' && QUALIFIED.test(id);
}

/** The `machine` field that sends a request to a qualified pane's machine (`{machine}`), or none for this machine's pane. */
export function machineField(paneId: string): { machine?: string } {
  const { machine } = splitPaneId(paneId);
  return machine ? { machine } : {};
}

/** The pane a request is about (its `req.paneId`), if it names one. */
export function paneIdOf(req: unknown): string | undefined {
  const paneId = (req as { paneId?: unknown } | null)?.paneId;
  return typeof paneId === 'string' ? paneId : undefined;
}
