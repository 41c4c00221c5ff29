/** Reading a surface's model defensively: the store validated it, but a card never trusts shapes. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
