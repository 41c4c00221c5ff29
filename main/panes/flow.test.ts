import { describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { FlowMeter, WindowShares, type LatencyBound } from './flow.ts';

/** A meter that skips ahead in a long flood, on a clock the test moves (what the skip tests share). */
function skipping(extra: Partial<LatencyBound>): { m: FlowMeter; clock: { t: number } } {
  const clock = { t: 0 };
  return { m: new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, startChars: 30_000, skipBackChars: 5_000, now: () => clock.t, ...extra }), clock };
}

describe('FlowMeter', () => {
  it('shares a window\'s floor among the panes holding output for it: 16 floods hold what one would, no pane under the share floor', () => {
    const clock = { t: 0 };
    const shares = new WindowShares();
    const bound: LatencyBound = { ms: 150, minChars: 128_000, startChars: 32_000, shares, shareFloorChars: 8_000, now: () => clock.t };
    const panes = Array.from({ length: 16 }, () => new FlowMeter(1_000_000, 500_000, bound));
    for (const m of panes) m.attach('w');
    // The first pane alone may hold its whole start allowance.
    panes[0]!.sent(31_000);
    expect(panes[0]!.shouldPause()).toBe(false);
    panes[0]!.ack('w', 31_000);
    expect(shares.count('w')).toBe(1);
    // 16 panes holding output: each may hold a sixteenth of it, and never less than the floor.
    for (const m of panes) m.sent(4_000);
    expect(shares.count('w')).toBe(16);
    for (const m of panes) expect(m.shouldPause()).toBe(false);
    for (const m of panes) m.sent(4_001);
    for (const m of panes) expect(m.shouldPause()).toBe(true);
    // Another window's share is its own.
    const other = new FlowMeter(1_000_000, 500_000, bound);
    other.attach('v');
    other.sent(31_000);
    expect(other.shouldPause()).toBe(false);
    // Fifteen read all they held: the last, once it has read what it held (it was paused), may hold the whole allowance again.
    for (const m of panes.slice(1)) m.ack('w', 8_001);
    expect(shares.count('w')).toBe(1);
    panes[0]!.ack('w', 8_001);
    expect(panes[0]!.shouldPause()).toBe(false);
    panes[0]!.sent(20_000);
    expect(panes[0]!.shouldPause()).toBe(false);
    // A reader that goes counts in no share.
    panes[0]!.detach('w');
    expect(shares.count('w')).toBe(1);
    expect(shares.count('v')).toBe(1);
  });

  it('shares what a window reads in the latency bound among its panes too: a pane holds its part of the page\'s 150 ms, not the whole', () => {
    const clock = { t: 1_000 };
    const shares = new WindowShares();
    const bound: LatencyBound = { ms: 150, minChars: 4_000, startChars: 30_000, shares, shareFloorChars: 2_000, now: () => clock.t };
    const [a, b] = [new FlowMeter(1_000_000, 500_000, bound), new FlowMeter(1_000_000, 500_000, bound)];
    a.attach('w');
    b.attach('w');
    a.sent(20_000);
    clock.t = 1_100;
    // 10,000 read in 100 ms: 100 a millisecond, 15,000 in 150 ms.
    a.ack('w', 10_000);
    expect(a.shouldPause()).toBe(false);
    // A second pane holds output for the window: each may hold half of that.
    b.sent(1_000);
    expect(a.shouldPause()).toBe(true);
    b.ack('w', 1_000);
    expect(a.shouldPause()).toBe(true);
    a.ack('w', 3_000);
    expect(a.shouldPause()).toBe(false);
  });

  it('with the contract\'s constants, a pane paused on its share resumes once the renderer has acknowledged all it can (whole chunks: what is short of one waits)', () => {
    const clock = { t: 1_000 };
    const shares = new WindowShares();
    const bound: LatencyBound = { ms: FLOW.latencyMs, minChars: FLOW.latencyMinChars, startChars: FLOW.latencyStartChars, shares, shareFloorChars: FLOW.latencyShareFloorChars, now: () => clock.t };
    const panes = Array.from({ length: 64 }, () => new FlowMeter(FLOW.highWatermarkChars, FLOW.lowWatermarkChars, bound));
    for (const m of panes) {
      m.attach('w');
      m.sent(1);
    }
    const a = panes[0]!;
    // Past its share, holding what leaves a chunk short of one once whole chunks are acknowledged: paused.
    const chunk = FLOW.ackChunkChars;
    let target = FLOW.latencyShareFloorChars + 1;
    while (target % chunk !== chunk - 1) target++;
    a.sent(target - a.behind('w'));
    expect(a.shouldPause()).toBe(true);
    // The renderer parses all of it and acknowledges whole chunks only.
    let held = a.behind('w');
    while (held >= FLOW.ackChunkChars) {
      a.ack('w', FLOW.ackChunkChars);
      held -= FLOW.ackChunkChars;
    }
    expect(a.shouldPause()).toBe(false);
  });

  it('uses the contract watermarks by default', () => {
    const m = new FlowMeter();
    m.attach('w');
    m.sent(FLOW.highWatermarkChars);
    expect(m.shouldPause()).toBe(false);
    m.sent(1);
    expect(m.shouldPause()).toBe(true);
  });

  it('pauses over the high watermark and resumes only under the low one', () => {
    const m = new FlowMeter(100, 10);
    m.attach('w');
    m.sent(101);
    expect(m.shouldPause()).toBe(true);
    m.ack('w', 50);
    expect(m.behind('w')).toBe(51);
    expect(m.shouldPause()).toBe(true);
    m.ack('w', 41);
    expect(m.behind('w')).toBe(10);
    expect(m.shouldPause()).toBe(true);
    m.ack('w', 1);
    expect(m.shouldPause()).toBe(false);
    m.sent(50);
    expect(m.shouldPause()).toBe(false);
  });

  it('pauses only when every reader in the flow is behind: two slow readers hold it', () => {
    const m = new FlowMeter(100, 10);
    m.attach('a');
    m.attach('b');
    expect(m.sent(200)).toEqual([]);
    expect(m.shouldPause()).toBe(true);
    m.ack('a', 195);
    expect(m.shouldPause()).toBe(false);
  });

  it('drops a reader that falls behind while another keeps up, and never pauses for it', () => {
    const m = new FlowMeter(100, 10);
    m.attach('fast');
    m.attach('slow');
    m.sent(60);
    m.ack('fast', 60);
    // 'slow' would be 120 behind; 'fast' takes it: 'slow' is dropped and not charged.
    expect(m.sent(60)).toEqual(['slow']);
    expect(m.accepts('slow')).toBe(false);
    expect(m.dropped('slow')).toBe(true);
    expect(m.behind('slow')).toBe(60);
    expect(m.accepts('fast')).toBe(true);
    expect(m.shouldPause()).toBe(false);
    // More output: the dropped reader is not charged, the fast one is.
    m.ack('fast', 60);
    expect(m.sent(80)).toEqual([]);
    expect(m.behind('slow')).toBe(60);
    expect(m.behind('fast')).toBe(80);
    expect(m.shouldPause()).toBe(false);
  });

  it('takes a dropped reader back once it has caught up under the low watermark', () => {
    const m = new FlowMeter(100, 10);
    m.attach('fast');
    m.attach('slow');
    m.sent(90);
    m.ack('fast', 90);
    expect(m.sent(20)).toEqual(['slow']);
    expect(m.ack('slow', 50)).toBe(false);
    expect(m.dropped('slow')).toBe(true);
    expect(m.ack('slow', 35)).toBe(true);
    expect(m.dropped('slow')).toBe(false);
    expect(m.behind('slow')).toBe(0);
    m.sent(5);
    expect(m.behind('slow')).toBe(5);
  });

  it('pauses for the last reader in the flow: a lone slow window is flow-controlled, not dropped', () => {
    const m = new FlowMeter(100, 10);
    m.attach('only');
    expect(m.sent(150)).toEqual([]);
    expect(m.accepts('only')).toBe(true);
    expect(m.shouldPause()).toBe(true);
  });

  it('lets go when a behind reader leaves', () => {
    const m = new FlowMeter(100, 10);
    m.attach('a');
    m.attach('gone');
    m.sent(150);
    expect(m.shouldPause()).toBe(true);
    m.ack('a', 150);
    expect(m.shouldPause()).toBe(false);
    m.sent(150);
    expect(m.shouldPause()).toBe(true);
    m.detach('gone');
    expect(m.has('gone')).toBe(false);
    m.ack('a', 150);
    expect(m.shouldPause()).toBe(false);
  });

  it('ignores acks from strangers, negative or oversized acks', () => {
    const m = new FlowMeter(100, 10);
    m.attach('w');
    m.sent(50);
    m.ack('stranger', 50);
    m.ack('w', -5);
    m.ack('w', NaN);
    expect(m.behind('w')).toBe(50);
    m.ack('w', 1000);
    expect(m.behind('w')).toBe(0);
    expect(m.behind('stranger')).toBe(0);
  });

  it('never pauses with no readers; a reader attached later starts at zero', () => {
    const m = new FlowMeter(100, 10);
    m.sent(10_000);
    expect(m.shouldPause()).toBe(false);
    m.attach('late');
    expect(m.behind('late')).toBe(0);
  });

  it('reset clears what was outstanding', () => {
    const m = new FlowMeter(100, 10);
    m.attach('w');
    m.sent(500);
    expect(m.shouldPause()).toBe(true);
    m.reset();
    expect(m.behind('w')).toBe(0);
    expect(m.shouldPause()).toBe(false);
  });

  it('with a latency bound, holds a slow reader to about what it reads in that time, and resumes under half of it', () => {
    let t = 0;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 1000, now: () => t });
    m.attach('page');
    // A flood: 100k a batch every 10 ms, the page reading 20k a 10 ms (2 MB/s).
    let paused = false;
    let maxBehind = 0;
    for (let step = 0; step < 200; step++) {
      t += 10;
      if (!paused) m.sent(100_000);
      if (m.behind('page') > 0) m.ack('page', Math.min(20_000, m.behind('page')));
      paused = m.shouldPause();
      // Once the flood is under way (the first burst is bounded by the high watermark).
      if (step >= 100) maxBehind = Math.max(maxBehind, m.behind('page'));
    }
    // Not the megabyte of the high watermark: about 75-150 ms of what it reads, plus a batch.
    expect(maxBehind).toBeLessThan(450_000);
    expect(maxBehind).toBeGreaterThan(100_000);
  });

  it('with a latency bound, holds a new reader to its start allowance until its rate is known, then to what it reads in that time', () => {
    let t = 1_000;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, startChars: 30_000, sampleMs: 50, now: () => t });
    m.attach('page');
    // The first burst of a flood: the page has not acknowledged anything yet.
    m.sent(20_000);
    expect(m.shouldPause()).toBe(false);
    m.sent(20_000);
    // 40,000 held, its rate unknown: over the start allowance (not the megabyte of the high watermark).
    expect(m.shouldPause()).toBe(true);
    // Its first acknowledgement, 25 ms on: not yet a sample of its rate (50 ms).
    t += 25;
    m.ack('page', 12_500);
    expect(m.shouldPause()).toBe(true);
    // 25,000 in the 50 ms since the flood began: 500 a millisecond, so it may hold 75,000
    // (150 ms of it) from now on, and 15,000 is under half of that.
    t += 25;
    m.ack('page', 12_500);
    expect(m.shouldPause()).toBe(false);
    m.sent(40_000);
    expect(m.shouldPause()).toBe(false);
    m.sent(30_000);
    expect(m.shouldPause()).toBe(true);
  });

  it('with a latency bound, samples a reader\'s rate over time, not from the gaps between acknowledgements that come together', () => {
    let t = 1_000;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, startChars: 30_000, sampleMs: 50, now: () => t });
    m.attach('page');
    let paused = false;
    let maxBehind = 0;
    // A flood read by a page that parses 16,000 characters a frame (1,000 a millisecond) and
    // acknowledges them at the end of the frame, 5,000 at a time within a millisecond.
    for (let frame = 0; frame < 60; frame++) {
      if (!paused) m.sent(64_000);
      t += 16;
      let parsed = Math.min(16_000, m.behind('page'));
      while (parsed > 0) {
        const chunk = Math.min(5_000, parsed);
        m.ack('page', chunk);
        parsed -= chunk;
        t += 0.1;
      }
      paused = m.shouldPause();
      if (frame >= 20) maxBehind = Math.max(maxBehind, m.behind('page'));
    }
    // About 150 ms of its reading (150,000) and a batch, not the megabyte its bursts would suggest.
    expect(maxBehind).toBeLessThan(300_000);
  });

  it('with a latency bound, does not count a spell with nothing to read as slow reading', () => {
    let t = 1_000;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 1_000, sampleMs: 50, now: () => t });
    m.attach('page');
    // A first flood read at 1,000 characters a millisecond.
    m.sent(100_000);
    for (let i = 0; i < 20; i++) {
      t += 5;
      m.ack('page', 5_000);
    }
    expect(m.behind('page')).toBe(0);
    // Ten seconds idle, then a second flood read at the same rate.
    t += 10_000;
    m.sent(190_000);
    for (let i = 0; i < 10; i++) {
      t += 5;
      m.ack('page', 5_000);
    }
    // 140,000 held is 140 ms of reading at 1,000 a millisecond, under its 150 ms: the idle spell did not count as slow reading.
    expect(m.shouldPause()).toBe(false);
  });

  it('with a latency bound, forgets a reader\'s rate after a quiet spell: a slower flood next is held to the start allowance, not the fast one\'s', () => {
    let t = 1_000;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, startChars: 30_000, now: () => t });
    m.attach('page');
    // A cat read at 5,000 characters a millisecond: it may hold 750,000.
    for (let i = 0; i < 20; i++) {
      m.sent(50_000);
      t += 10;
      m.ack('page', 50_000);
    }
    m.sent(700_000);
    expect(m.shouldPause()).toBe(false);
    t += 140;
    m.ack('page', 700_000);
    // A second later, `yes`: its first burst is held to the start allowance.
    t += 1_000;
    m.sent(40_000);
    expect(m.shouldPause()).toBe(true);
    // Without the quiet spell, a flood goes on at the rate it had.
    const c = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, startChars: 30_000, now: () => t });
    c.attach('page');
    for (let i = 0; i < 20; i++) {
      c.sent(50_000);
      t += 10;
      c.ack('page', 50_000);
    }
    c.sent(700_000);
    expect(c.shouldPause()).toBe(false);
  });

  it('with a latency bound, never holds back a reader that keeps up, nor output under its minimum', () => {
    let t = 0;
    const m = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 100_000, now: () => t });
    m.attach('fast');
    for (let step = 0; step < 100; step++) {
      t += 10;
      m.sent(200_000);
      m.ack('fast', 200_000);
      expect(m.shouldPause()).toBe(false);
    }
    // A slow reader (1,000 characters a millisecond): under its minimum it is never held back.
    const s = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 100_000, sampleMs: 10, now: () => t });
    s.attach('slow');
    s.sent(60_000);
    t += 10;
    s.ack('slow', 10_000);
    t += 10;
    s.ack('slow', 10_000);
    expect(s.shouldPause()).toBe(false);
    s.sent(150_000);
    // 190,000 held: more than it reads in 150 ms.
    expect(s.shouldPause()).toBe(true);
    t += 10;
    s.ack('slow', 10_000);
    expect(s.shouldPause()).toBe(true);
    t += 100;
    s.ack('slow', 110_000);
    expect(s.shouldPause()).toBe(false);
  });

  it('skips ahead in a long flood: a lone slow reader is dropped rather than holding the PTY, and taken back once it has read nearly all it held', () => {
    const { m, clock } = skipping({ skipAfterChars: 100_000 });
    m.attach('w');
    // The flood's start: under skipAfterChars the reader is flow-controlled as before.
    for (let i = 0; i < 3; i++) {
      clock.t += 5;
      expect(m.sent(12_000)).toEqual([]);
    }
    expect(m.shouldPause()).toBe(true);
    m.ack('w', 22_000);
    expect(m.shouldPause()).toBe(false);
    // More of the same flood, past skipAfterChars: what would make it full drops it instead.
    for (let i = 0; i < 6; i++) {
      clock.t += 5;
      m.sent(48_000);
      clock.t += 15;
      m.ack('w', 48_000);
    }
    // It reads 2,400 characters a millisecond (its rate known): 360,000 is what it may hold.
    clock.t += 5;
    expect(m.sent(400_000)).toEqual(['w']);
    expect(m.accepts('w')).toBe(false);
    expect(m.shouldPause()).toBe(false);
    // Not charged for what it is not sent: the PTY runs on.
    const held = m.behind('w');
    clock.t += 5;
    expect(m.sent(500_000)).toEqual([]);
    expect(m.behind('w')).toBe(held);
    expect(m.shouldPause()).toBe(false);
    // Taken back once it holds under skipBackChars, not under the low watermark.
    expect(m.ack('w', held - 5_000)).toBe(false);
    expect(m.accepts('w')).toBe(false);
    expect(m.ack('w', 1)).toBe(true);
    expect(m.behind('w')).toBe(0);
    // Sent output again once its snapshot is taken (the redraw).
    expect(m.accepts('w')).toBe(false);
    m.redrawn('w');
    expect(m.accepts('w')).toBe(true);
  });

  it('does not skip ahead in a short burst, nor in a flood broken by quiet spells longer than the latency bound', () => {
    const { m, clock } = skipping({ skipAfterChars: 100_000 });
    m.attach('w');
    // 90,000 in bursts of 30,000, each after a quiet spell of 200 ms: never one flood of 100,000.
    for (let i = 0; i < 10; i++) {
      clock.t += 200;
      expect(m.sent(30_000)).toEqual([]);
      expect(m.sent(10_000)).toEqual([]);
      expect(m.shouldPause()).toBe(true);
      m.ack('w', 40_000);
      expect(m.shouldPause()).toBe(false);
    }
    expect(m.accepts('w')).toBe(true);
    // Without skipAfterChars a long flood never drops a lone reader.
    const plain = new FlowMeter(1_000_000, 500_000, { ms: 150, minChars: 10_000, now: () => clock.t });
    plain.attach('w');
    for (let i = 0; i < 100; i++) {
      clock.t += 5;
      expect(plain.sent(12_000)).toEqual([]);
      plain.ack('w', 12_000);
    }
    clock.t += 5;
    expect(plain.sent(400_000)).toEqual([]);
    expect(plain.shouldPause()).toBe(true);
  });

  it('takes a reader left behind back no sooner than skipRedrawMs after it was dropped, even one that held nothing when dropped', () => {
    const { m, clock } = skipping({ skipAfterChars: 50_000, skipRedrawMs: 250 });
    m.attach('w');
    expect(m.nextTakeBack()).toBeUndefined();
    const read = (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.t += 20;
        m.sent(12_000);
        m.ack('w', 12_000);
      }
    };
    read(5);
    // Caught up when a batch too big for it comes: dropped holding nothing, so no ack will come to take it back.
    clock.t += 5;
    expect(m.sent(400_000)).toEqual(['w']);
    const droppedAt = clock.t;
    expect(m.nextTakeBack()).toBe(250);
    clock.t += 100;
    expect(m.takeBack()).toEqual([]);
    expect(m.nextTakeBack()).toBe(150);
    clock.t = droppedAt + 250;
    expect(m.takeBack()).toEqual(['w']);
    m.redrawn('w');
    expect(m.accepts('w')).toBe(true);
    expect(m.nextTakeBack()).toBeUndefined();
    // Dropped again holding some (once its rate is known again): its acks do not take it back before its time either.
    read(4);
    clock.t += 5;
    m.sent(20_000);
    clock.t += 5;
    expect(m.sent(400_000)).toEqual(['w']);
    clock.t += 50;
    expect(m.ack('w', 20_000)).toBe(false);
    expect(m.accepts('w')).toBe(false);
    expect(m.nextTakeBack()).toBe(200);
    clock.t += 200;
    expect(m.takeBack()).toEqual(['w']);
  });

  it('sends a reader taken back nothing until its snapshot is taken, then holds it to the rate it read the flood at; one that never asks is sent output after skipRedrawMs', () => {
    const { m, clock } = skipping({ skipAfterChars: 50_000, skipRedrawMs: 250 });
    m.attach('w');
    // It reads 800 characters a millisecond (48,000 acknowledged over the 60 ms of one
    // sample): 120,000 in the latency bound of 150 ms.
    for (let i = 0; i < 5; i++) {
      clock.t += 20;
      m.sent(12_000);
      m.ack('w', 12_000);
    }
    clock.t += 5;
    expect(m.sent(400_000)).toEqual(['w']);
    clock.t += 250;
    expect(m.takeBack()).toEqual(['w']);
    // Told to redraw, it is not sent what comes before its snapshot (the snapshot holds it),
    // nor does it hold the PTY; a late acknowledgement does not take it back a second time.
    expect(m.accepts('w')).toBe(false);
    expect(m.dropped('w')).toBe(true);
    clock.t += 10;
    expect(m.sent(60_000)).toEqual([]);
    expect(m.behind('w')).toBe(0);
    expect(m.shouldPause()).toBe(false);
    expect(m.ack('w', 5_000)).toBe(false);
    expect(m.skipping()).toBe(false);
    // Its snapshot taken, it is sent output, and what it may hold is what it reads in 150 ms:
    // more than that leaves it behind again at once (its rate unknown, it would hold the PTY
    // paused at the start allowance until a new sample came).
    m.redrawn('w');
    expect(m.accepts('w')).toBe(true);
    clock.t += 5;
    expect(m.sent(60_000)).toEqual([]);
    clock.t += 5;
    expect(m.sent(70_000)).toEqual(['w']);
    expect(m.shouldPause()).toBe(false);
    // One that never asks for its snapshot (a client that does not redraw, a snapshot that
    // failed) is sent output again skipRedrawMs after it was told to redraw.
    m.ack('w', 60_000);
    clock.t += 250;
    expect(m.takeBack()).toEqual(['w']);
    clock.t += 100;
    m.sent(1_000);
    expect(m.accepts('w')).toBe(false);
    clock.t += 150;
    expect(m.sent(1_000)).toEqual([]);
    expect(m.accepts('w')).toBe(true);
    expect(m.behind('w')).toBe(1_000);
  });

  it('hurries readers left behind: after input (or once the flood is quiet) one caught up is taken back at once, one still reading on its next acknowledgement', () => {
    const { m, clock } = skipping({ skipAfterChars: 50_000, skipRedrawMs: 500 });
    m.attach('a');
    m.attach('b');
    for (let i = 0; i < 5; i++) {
      clock.t += 20;
      m.sent(12_000);
      m.ack('a', 12_000);
      m.ack('b', 12_000);
    }
    clock.t += 5;
    m.sent(20_000);
    clock.t += 5;
    expect(m.sent(400_000)).toEqual(['a', 'b']);
    expect(m.skipping()).toBe(true);
    m.ack('a', 20_000);
    clock.t += 10;
    expect(m.takeBack()).toEqual([]);
    m.hurry();
    expect(m.nextTakeBack()).toBe(0);
    expect(m.takeBack()).toEqual(['a']);
    expect(m.ack('b', 20_000)).toBe(true);
    expect(m.skipping()).toBe(false);
  });

  it('leaves behind only a reader known to read slower than skipBelowRate: not a fast one, nor one whose rate is not known yet', () => {
    const { m, clock } = skipping({ skipAfterChars: 50_000, skipBelowRate: 1_000 });
    m.attach('fast');
    m.attach('slow');
    m.attach('new');
    for (let i = 0; i < 5; i++) {
      clock.t += 20;
      m.sent(24_000);
      m.ack('fast', 24_000);
      if (i % 2 === 0) m.ack('slow', 12_000);
    }
    // 'fast' reads 1,200 a millisecond, 'slow' about 360; 'new' acknowledged nothing: its rate is not known.
    clock.t += 5;
    expect(m.sent(600_000)).toEqual(['slow']);
    expect(m.accepts('fast')).toBe(true);
    expect(m.accepts('new')).toBe(true);
    // The others are flow-controlled: full, they hold the PTY as before.
    expect(m.shouldPause()).toBe(true);
  });

  it('in the background, leaves behind at once every reader not known to keep nearly up, whatever the flood\'s length; redraws it every backgroundRedrawMs; out of it, takes it back once caught up', () => {
    const { m, clock } = skipping({ skipAfterChars: 1_000_000, skipBelowRate: 1_000, skipRedrawMs: 500, backgroundRedrawMs: 800 });
    m.attach('fast');
    m.attach('page');
    for (let i = 0; i < 5; i++) {
      clock.t += 20;
      m.sent(24_000);
      m.ack('fast', 24_000);
      if (i % 2 === 0) m.ack('page', 12_000);
    }
    m.ack('page', 84_000);
    // (A window just come: its rate is not known.)
    m.attach('new');
    m.background = true;
    // A short burst: a page and a reader whose rate is not known are sent none of it; one that acknowledges at once is.
    clock.t += 5;
    expect(m.sent(100)).toEqual(['page', 'new']);
    expect(m.accepts('fast')).toBe(true);
    expect(m.skipping()).toBe(true);
    // Nothing held: the PTY is not paused for them (the fast one keeps up).
    expect(m.shouldPause()).toBe(false);
    // Caught up, they are taken back skipRedrawMs after they were left (each redraws), and left again on the next output.
    expect(m.nextTakeBack()).toBe(800);
    clock.t += 800;
    expect(m.takeBack()).toEqual(['page', 'new']);
    expect(m.redrawn('page')).toBe(true);
    clock.t += 5;
    expect(m.sent(100)).toEqual(['page']);
    // Out of the background (looked at, typed into): taken back at once, and sent output again after its snapshot.
    m.background = false;
    m.hurry();
    expect(m.takeBack()).toEqual(['page']);
    expect(m.redrawn('page')).toBe(true);
    expect(m.redrawn('new')).toBe(true);
    expect(m.sent(100)).toEqual([]);
    expect(m.accepts('page')).toBe(true);
    expect(m.accepts('new')).toBe(true);
  });

  it('counts a flood in the background among its window\'s shares: a pane taken out of it beside other floods holds its share, not the whole floor', () => {
    const shares = new WindowShares();
    const bound: LatencyBound = { ms: 150, minChars: 128_000, startChars: 32_000, shares, shareFloorChars: 8_000, now: () => 0 };
    const [a, b, c] = Array.from({ length: 3 }, () => new FlowMeter(1_000_000, 500_000, bound));
    for (const m of [a!, b!, c!]) m.attach('w');
    b!.background = true;
    c!.background = true;
    expect(shares.count('w')).toBe(2);
    // The one focused among them: a third of the start allowance (over the floor), not all of it.
    a!.sent(10_000);
    expect(shares.count('w')).toBe(3);
    expect(a!.shouldPause()).toBe(false);
    a!.sent(1_000);
    expect(a!.shouldPause()).toBe(true);
    // Out of the background, holding nothing: no longer counted.
    b!.background = false;
    c!.background = false;
    a!.ack('w', 11_000);
    expect(shares.count('w')).toBe(1);
  });

  it('says when a batch would fill every reader in the flow (the pane sends it then): the share of a window beside floods, not 64 KiB', () => {
    const shares = new WindowShares();
    const bound: LatencyBound = { ms: 150, minChars: 128_000, startChars: 32_000, shares, shareFloorChars: 8_000, now: () => 0 };
    const [a, b, c, d] = Array.from({ length: 4 }, () => new FlowMeter(1_000_000, 500_000, bound));
    expect(a!.fills(100_000)).toBe(false);
    for (const m of [a!, b!, c!, d!]) m.attach('w');
    for (const m of [b!, c!, d!]) m.background = true;
    // Beside three floods: a quarter of the start allowance (8,000).
    expect(a!.fills(8_000)).toBe(false);
    expect(a!.fills(8_001)).toBe(true);
    a!.sent(5_000);
    expect(a!.fills(3_001)).toBe(true);
    // A second reader with room left: not every reader would be full.
    a!.attach('fast');
    expect(a!.fills(3_001)).toBe(false);
  });
});
