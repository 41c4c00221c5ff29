import { describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { FlowMeter } from './flow.ts';

describe('FlowMeter', () => {
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

  it('is held paused by the slowest reader', () => {
    const m = new FlowMeter(100, 10);
    m.attach('fast');
    m.attach('slow');
    m.sent(200);
    expect(m.shouldPause()).toBe(true);
    m.ack('fast', 200);
    expect(m.shouldPause()).toBe(true);
    m.ack('slow', 195);
    expect(m.shouldPause()).toBe(false);
  });

  it('lets go when the slow reader leaves', () => {
    const m = new FlowMeter(100, 10);
    m.attach('a');
    m.attach('gone');
    m.sent(150);
    m.ack('a', 150);
    expect(m.shouldPause()).toBe(true);
    m.detach('gone');
    expect(m.has('gone')).toBe(false);
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
});
