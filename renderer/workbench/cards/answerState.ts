/**
 * A waiting card's state, from its model (`state`, `state_note`, `answerable`): whether
 * its answer buttons stand, and the words and tone of its state line. Any card may carry
 * these fields (the agent channel's question and permission cards do); the bench reads
 * them without knowing who asks. Pure.
 */
export type AnswerState = 'waiting' | 'answered_here' | 'answered_in_terminal' | 'cancelled' | 'timed_out' | 'invalidated';

const LABEL: Record<AnswerState, string> = {
  waiting: 'waiting for you',
  answered_here: 'answered here',
  answered_in_terminal: 'answered in the terminal',
  cancelled: 'cancelled',
  timed_out: 'timed out',
  invalidated: 'no longer asked',
};

const TONE: Record<AnswerState, 'ok' | 'warn' | 'bad' | 'rec'> = {
  waiting: 'rec', answered_here: 'ok', answered_in_terminal: 'ok', cancelled: 'bad', timed_out: 'warn', invalidated: 'warn',
};

export interface StateLine {
  state: AnswerState;
  label: string;
  tone: 'ok' | 'warn' | 'bad' | 'rec';
  note?: string;
  /** Whether the answer buttons (and the composer's answer) are offered. */
  open: boolean;
}

/** The state line of a card whose model says one, else undefined (cards without it are as before). */
export function stateLine(model: Record<string, unknown>): StateLine | undefined {
  const s = model.state;
  if (typeof s !== 'string' || !Object.hasOwn(LABEL, s)) return undefined;
  const state = s as AnswerState;
  const note = typeof model.state_note === 'string' && model.state_note ? model.state_note : undefined;
  const answered = typeof model.answer === 'string' && model.answer && state !== 'waiting' ? `: ${model.answer}` : '';
  return {
    state,
    label: `${LABEL[state]}${state === 'answered_here' || state === 'answered_in_terminal' ? answered : ''}`,
    tone: model.answerable === false && state === 'waiting' ? 'warn' : TONE[state],
    ...(note ? { note } : {}),
    open: state === 'waiting' && model.answerable !== false,
  };
}
