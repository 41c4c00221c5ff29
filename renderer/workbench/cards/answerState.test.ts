import { describe, expect, it } from 'vitest';
import { stateLine } from './answerState.ts';

describe('a card\'s answer state', () => {
  it('waiting cards keep their buttons; every other state takes them away', () => {
    expect(stateLine({ state: 'waiting' })).toEqual({ state: 'waiting', label: 'waiting for you', tone: 'rec', open: true });
    for (const state of ['answered_here', 'answered_in_terminal', 'cancelled', 'timed_out', 'invalidated']) {
      expect(stateLine({ state })?.open, state).toBe(false);
    }
  });
  it('says the answer and the note', () => {
    expect(stateLine({ state: 'answered_in_terminal', answer: 'allow', state_note: "Answered in Codex's terminal." }))
      .toEqual({ state: 'answered_in_terminal', label: 'answered in the terminal: allow', tone: 'ok', note: "Answered in Codex's terminal.", open: false });
    expect(stateLine({ state: 'cancelled', answer: 'allow' })?.label).toBe('cancelled');
  });
  it('a waiting card the bench cannot answer has no buttons and says why', () => {
    expect(stateLine({ state: 'waiting', answerable: false, state_note: 'Answer in its terminal.' })).toEqual({ state: 'waiting', label: 'waiting for you', tone: 'warn', note: 'Answer in its terminal.', open: false });
  });
  it('cards without a known state are left as they were', () => {
    expect(stateLine({})).toBeUndefined();
    expect(stateLine({ state: 'asleep' })).toBeUndefined();
  });
});
