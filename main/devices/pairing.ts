/**
 * One pairing at a time (docs/design/remote.md, "Pairing"): a 128-bit secret (in the QR
 * code's URL fragment) and an 8-character code from an unambiguous alphabet (typed), each
 * good for one device within 5 minutes; 5 wrong tries end both. Pure: the clock and the
 * random bytes are given.
 */
import { randomBytes } from 'node:crypto';
import { tokensEqual } from '../tokens.ts';

/** No 0/O, 1/I/L, 2/Z, 5/S, 8/B: what a person can read off a screen and type without doubt. */
export const CODE_ALPHABET = 'ACDEFGHJKMNPQRTUVWXY34679';
export const CODE_LENGTH = 8;
export const PAIRING_MS = 5 * 60_000;
export const MAX_TRIES = 5;

export type PairingEnd = 'paired' | 'expired' | 'too many wrong tries' | 'closed';

export interface PairingOffer {
  secret: string;
  code: string;
  expiresAt: number;
}

/**
 * How long a pairing is good for: 5 minutes; a browser test of its expiry (TD_TEST only) can
 * shorten it with TD_TEST_PAIRING_MS, as it cannot move the service's clock.
 */
export function pairingMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.TD_TEST_PAIRING_MS);
  return env.TD_TEST === '1' && Number.isInteger(ms) && ms > 0 ? ms : PAIRING_MS;
}

/** `random(n)`: n random bytes. */
export function makeOffer(now: number, random: (n: number) => Buffer = randomBytes, lifetimeMs = PAIRING_MS): PairingOffer {
  const secret = random(16).toString('hex');
  // Rejection sampling keeps every letter equally likely (256 is not a multiple of 25).
  let code = '';
  const limit = 256 - (256 % CODE_ALPHABET.length);
  while (code.length < CODE_LENGTH) {
    for (const b of random(16)) {
      if (b < limit && code.length < CODE_LENGTH) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
    }
  }
  return { secret, code, expiresAt: now + lifetimeMs };
}

/** A code as typed: case, spaces and dashes do not matter. */
export function normaliseCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '');
}

export class Pairing {
  readonly offer: PairingOffer;
  private wrong = 0;
  private endedAs: PairingEnd | undefined;

  constructor(offer: PairingOffer) {
    this.offer = offer;
  }

  /** Why it ended, or undefined while it is open (an expiry is noticed when asked). */
  ended(now: number): PairingEnd | undefined {
    if (!this.endedAs && now >= this.offer.expiresAt) this.endedAs = 'expired';
    return this.endedAs;
  }

  end(why: PairingEnd): void {
    this.endedAs ??= why;
  }

  get wrongTries(): number {
    return this.wrong;
  }

  /** A try with the secret or the code: true pairs (and ends it); otherwise the sentence saying why not. */
  attempt(given: { secret?: string; code?: string }, now: number): true | string {
    const was = this.ended(now);
    if (was) return endedSentence(was);
    const ok = (typeof given.secret === 'string' && given.secret !== '' && tokensEqual(given.secret.toLowerCase(), this.offer.secret))
      || (typeof given.code === 'string' && given.code !== '' && tokensEqual(normaliseCode(given.code), this.offer.code));
    if (ok) {
      this.endedAs = 'paired';
      return true;
    }
    this.wrong++;
    if (this.wrong >= MAX_TRIES) {
      this.endedAs = 'too many wrong tries';
      return endedSentence(this.endedAs);
    }
    const left = MAX_TRIES - this.wrong;
    return `that code is wrong: ${left} ${left === 1 ? 'try' : 'tries'} left; check the code the desktop shows`;
  }
}

export function endedSentence(why: PairingEnd): string {
  switch (why) {
    case 'paired': return 'this pairing was used already: start a new pairing on the desktop (Pair a device)';
    case 'expired': return 'this pairing expired (a code is good for 5 minutes): start a new pairing on the desktop';
    case 'too many wrong tries': return 'this pairing ended after 5 wrong tries: start a new pairing on the desktop';
    case 'closed': return 'no pairing is open: start one on the desktop (Pair a device), or run terminal-delight devices pair';
  }
}
