import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, makeOffer, MAX_TRIES, normaliseCode, Pairing, PAIRING_MS, pairingMs } from './pairing.ts';

describe('pairing', () => {
  it('makes an 8-character code from the unambiguous alphabet and a 128-bit secret, good for 5 minutes', () => {
    for (let i = 0; i < 200; i++) {
      const o = makeOffer(1000);
      expect(o.code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{8}$`));
      expect(o.secret).toMatch(/^[0-9a-f]{32}$/);
      expect(o.expiresAt).toBe(1000 + PAIRING_MS);
    }
    expect(CODE_ALPHABET).not.toMatch(/[0O1IL2Z5S8B]/);
  });

  it('takes random bytes past the alphabet\'s last whole multiple only by drawing again', () => {
    // 250..255 are dropped (250 = 10 × 25): a byte of 255 never becomes a letter.
    let calls = 0;
    const random = (n: number) => Buffer.alloc(n, calls++ === 0 ? 0 : calls === 2 ? 255 : 26);
    const o = makeOffer(0, random);
    expect(o.code).toBe('C'.repeat(8));
  });

  it('is good for 5 minutes, shortened only for a test (TD_TEST=1 and TD_TEST_PAIRING_MS)', () => {
    expect(pairingMs({})).toBe(PAIRING_MS);
    expect(pairingMs({ TD_TEST_PAIRING_MS: '2000' })).toBe(PAIRING_MS);
    expect(pairingMs({ TD_TEST: '1', TD_TEST_PAIRING_MS: '2000' })).toBe(2000);
    expect(pairingMs({ TD_TEST: '1', TD_TEST_PAIRING_MS: 'soon' })).toBe(PAIRING_MS);
    expect(makeOffer(1000, undefined, 2000).expiresAt).toBe(3000);
  });

  it('reads a typed code whatever its case, spaces and dashes', () => {
    expect(normaliseCode(' acde-fghj ')).toBe('ACDEFGHJ');
  });

  it('pairs once with the code or the secret; 5 wrong tries end it; it expires', () => {
    const o = { secret: 'ab'.repeat(16), code: 'ACDEFGHJ', expiresAt: 10_000 };
    const p = new Pairing(o);
    expect(p.attempt({ code: 'acde fghj' }, 0)).toBe(true);
    expect(p.attempt({ code: 'ACDEFGHJ' }, 0)).toContain('used already');
    expect(new Pairing(o).attempt({ secret: 'AB'.repeat(16) }, 0)).toBe(true);

    const q = new Pairing(o);
    for (let i = 1; i < MAX_TRIES; i++) expect(q.attempt({ code: 'XXXXXXXX' }, 0)).toContain(`${MAX_TRIES - i} tr`);
    expect(q.attempt({ secret: '' }, 0)).toContain('ended after 5 wrong tries');
    expect(q.attempt({ code: 'ACDEFGHJ' }, 0)).toContain('ended after 5 wrong tries');
    expect(q.ended(0)).toBe('too many wrong tries');

    const r = new Pairing(o);
    expect(r.ended(9_999)).toBeUndefined();
    expect(r.attempt({ code: 'ACDEFGHJ' }, 10_000)).toContain('expired');
    const s = new Pairing(o);
    s.end('closed');
    expect(s.attempt({ code: 'ACDEFGHJ' }, 0)).toContain('no pairing is open');
  });
});
