/** Secrets compared in constant time: the doors' tokens, pairing codes. */
import { timingSafeEqual } from 'node:crypto';

export function tokensEqual(given: string | undefined | null, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
