import { describe, expect, it } from 'vitest';
import { TDAC_VERSION } from '../agent-channel/events.ts';
import { transcriptOf } from './transcript.ts';

const ev = (id: string, type: string, extra: Record<string, unknown>): string => JSON.stringify({ tdac: TDAC_VERSION, id, at: `2026-12-04T10:00:0${id.slice(-1)}Z`, agent: 'codex', type, ...extra });

describe('transcriptOf', () => {
  const lines = [
    ev('e1', 'session', { session_id: 'old', transcript_path: '/t/old.jsonl' }),
    ev('e2', 'prompt', { session_id: 'old', text: 'an earlier session' }),
    ev('e3', 'session', { session_id: 'new', transcript_path: '/t/new.jsonl' }),
    ev('e4', 'prompt', { session_id: 'new', text: 'move the cache' }),
    ev('e5', 'tool', { session_id: 'new', tool_name: 'Bash', tool_input: { command: 'ls' }, failed: true }),
    'not json',
    ev('e6', 'reply', { session_id: 'new', text: 'Moved **it**.' }),
  ];
  it('is the hit\'s agent session, its prompts, replies and tool runs in order, and which entry the hit is', () => {
    const t = transcriptOf(lines, 'e6');
    expect(t).toMatchObject({ agent: 'codex', sessionId: 'new', path: '/t/new.jsonl', index: 2, cut: { before: 0, after: 0 } });
    expect(typeof t !== 'string' && t.entries.map((e) => [e.kind, e.ref, e.text])).toEqual([
      ['prompt', 'e4', 'move the cache'], ['tool', 'e5', 'Bash (failed) {"command":"ls"}'], ['reply', 'e6', 'Moved **it**.'],
    ]);
  });
  it('holds the text as the index does: a reply with a private key in it, the key redacted whole', () => {
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nQyNTUxOQAAACDx4mVhM2QwZTk1ZjQ3YjFlMGY5ZDhh\n-----END OPENSSH PRIVATE KEY-----`;
    const t = transcriptOf([ev('e1', 'reply', { session_id: 's', text: `Here it is:\n${key}\nkeep it safe` })], 'e1');
    expect(typeof t !== 'string' && t.entries[0]!.text).toBe('Here it is:\n[redacted]\n[redacted]\n[redacted]\n[redacted]\nkeep it safe');
  });
  it('says so when the event is no longer in the record', () => {
    expect(transcriptOf(lines, 'e9')).toBe('the agent event e9 is no longer in the pane\'s record');
  });
  it('keeps 400 entries of a long session around the hit, and counts the rest', () => {
    const long = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ tdac: TDAC_VERSION, id: `p${i}`, at: '2026-12-04T10:00:00Z', type: 'prompt', session_id: 's', text: `n${i}` }));
    const t = transcriptOf(long, 'p700');
    if (typeof t === 'string') throw new Error(t);
    expect([t.entries.length, t.cut, t.entries[t.index]!.text]).toEqual([400, { before: 500, after: 100 }, 'n700']);
  });
});
