import { describe, expect, it } from 'vitest';
import { KINDS, catalogue, catalogueTable } from './registry.ts';
import { checkSurface, madeUpId, measure, type Checked } from './validate.ts';

const td = '0.4';
const ok = (kind: string, model: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ td, kind, id: `${kind}-1`, model, ...extra });

type Expect =
  | { type: 'present' | 'update'; id?: string; title?: string; kind?: string }
  | { type: 'retire'; id: string }
  | { type: 'refused'; reason: string | RegExp };

interface Row {
  name: string;
  doc: unknown;
  expect: Expect;
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

const ROWS: Row[] = [
  // every kind, valid
  { name: 'response valid', doc: ok('response', { layman: 'It works.', body: '# Done', register: 'done' }), expect: { type: 'present', id: 'response-1' } },
  { name: 'response register answer', doc: ok('response', { layman: 'x', register: 'answer' }), expect: { type: 'present' } },
  { name: 'decision valid (the text\'s example)', doc: { td, kind: 'decision', id: 'cache-eviction', title: 'Cache eviction policy', model: { question: 'LRU or TTL?', options: [{ name: 'LRU', recommended: true, case: '3× fewer misses on the replay corpus.', cost: 'A cold start is slower.' }, { name: 'TTL' }] } }, expect: { type: 'present', id: 'cache-eviction', title: 'Cache eviction policy' } },
  { name: 'question valid', doc: ok('question', { question: 'Tea or coffee?', options: [{ name: 'Tea' }, { name: 'Coffee', detail: 'strong' }], multiple: false, free_text: true }), expect: { type: 'present' } },
  { name: 'question with no options', doc: ok('question', { question: 'Why?' }), expect: { type: 'present' } },
  { name: 'change valid', doc: ok('change', { summary: 's', files: [{ path: 'a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' }] }), expect: { type: 'present' } },
  { name: 'artifact absolute path', doc: ok('artifact', { location: '/tmp/report.html', media_type: 'text/html' }), expect: { type: 'present' } },
  { name: 'artifact https', doc: ok('artifact', { location: 'https://example.com/r.pdf' }), expect: { type: 'present' } },
  { name: 'artifact http', doc: ok('artifact', { location: 'http://localhost:8080/' }), expect: { type: 'present' } },
  { name: 'artifact file URL', doc: ok('artifact', { location: 'file:///tmp/x.md' }), expect: { type: 'present' } },
  { name: 'table valid', doc: ok('table', { columns: ['a', 'b'], rows: [[1, 'x'], [null, true]], caption: 'c' }), expect: { type: 'present' } },
  { name: 'diagram mermaid', doc: ok('diagram', { format: 'mermaid', source: 'graph TD; A-->B' }), expect: { type: 'present' } },
  { name: 'diagram svg', doc: ok('diagram', { format: 'svg', source: '<svg/>' }), expect: { type: 'present' } },
  { name: 'extra model fields are kept', doc: ok('response', { layman: 'x', future: 1 }), expect: { type: 'present' } },
  // every kind, invalid
  { name: 'response without layman', doc: ok('response', { body: 'x' }), expect: { type: 'refused', reason: 'a response needs a `layman` — the plain-English explanation of the whole reply' } },
  { name: 'response empty layman', doc: ok('response', { layman: '' }), expect: { type: 'refused', reason: /`model.layman` must NOT have fewer than 1 characters/ } },
  { name: 'response bad register', doc: ok('response', { layman: 'x', register: 'shouting' }), expect: { type: 'refused', reason: /register` must be equal to one of the allowed values — one of answer, progress, done, blocked or warning/ } },
  { name: 'decision without options', doc: ok('decision', { question: 'q' }), expect: { type: 'refused', reason: /^a decision needs a `options`/ } },
  { name: 'decision with empty options', doc: ok('decision', { question: 'q', options: [] }), expect: { type: 'refused', reason: /`model.options` must NOT have fewer than 1 items/ } },
  { name: 'decision option without name', doc: ok('decision', { question: 'q', options: [{ case: 'x' }] }), expect: { type: 'refused', reason: "a decision's `model.options[0]` needs a `name` — the option's name" } },
  { name: 'decision without question', doc: ok('decision', { options: [{ name: 'a' }] }), expect: { type: 'refused', reason: /^a decision needs a `question`/ } },
  { name: 'question without question', doc: ok('question', { options: [] }), expect: { type: 'refused', reason: /^a question needs a `question`/ } },
  { name: 'question multiple not boolean', doc: ok('question', { question: 'q', multiple: 'yes' }), expect: { type: 'refused', reason: /`model.multiple` must be boolean/ } },
  { name: 'change without files', doc: ok('change', { summary: 's' }), expect: { type: 'refused', reason: /^a change needs a `files`/ } },
  { name: 'change file without diff', doc: ok('change', { files: [{ path: 'a' }] }), expect: { type: 'refused', reason: /`model.files\[0\]` needs a `diff`/ } },
  { name: 'artifact relative path (the text\'s refusal)', doc: ok('artifact', { location: 'report.html' }), expect: { type: 'refused', reason: '"report.html" is relative — it would resolve against the TERMINAL\'s directory, not yours. Send an absolute path or a full URL.' } },
  { name: 'artifact dot-relative path', doc: ok('artifact', { location: './out/r.md' }), expect: { type: 'refused', reason: /is relative/ } },
  { name: 'artifact other scheme', doc: ok('artifact', { location: 'ftp://host/x' }), expect: { type: 'refused', reason: /uses the ftp: scheme/ } },
  { name: 'artifact javascript scheme', doc: ok('artifact', { location: 'javascript:alert(1)' }), expect: { type: 'refused', reason: /uses the javascript: scheme/ } },
  { name: 'artifact without location', doc: ok('artifact', { summary: 's' }), expect: { type: 'refused', reason: /^an artifact needs a `location` — an absolute path, or an http:\/\/, https:\/\/ or file:\/\/ address$/ } },
  { name: 'table without rows', doc: ok('table', { columns: ['a'] }), expect: { type: 'refused', reason: /^a table needs a `rows`/ } },
  { name: 'table with object cells', doc: ok('table', { columns: ['a'], rows: [[{}]] }), expect: { type: 'refused', reason: /`model.rows\[0\]\[0\]` must be/ } },
  { name: 'diagram bad format', doc: ok('diagram', { format: 'png', source: 'x' }), expect: { type: 'refused', reason: /format` must be equal to one of the allowed values — mermaid or svg/ } },
  { name: 'comment from an agent', doc: ok('comment', { text: 'hi' }), expect: { type: 'refused', reason: /^kind "comment" is not offered to agents — this build renders response, decision/ } },
  { name: 'unclassified from an agent', doc: ok('unclassified', { reason: 'x' }), expect: { type: 'refused', reason: /^kind "unclassified" is not offered to agents/ } },
  { name: 'model missing', doc: { td, kind: 'response', id: 'r' }, expect: { type: 'refused', reason: 'a response needs a `model` object — see surface_catalogue for the fields each kind takes' } },
  { name: 'model is an array', doc: { td, kind: 'table', model: [] }, expect: { type: 'refused', reason: /needs a `model` object/ } },
  // kinds
  { name: 'unknown kind (the text\'s refusal)', doc: ok('hologram', {}), expect: { type: 'refused', reason: /^unknown kind "hologram" — this build renders response, decision, question, change, artifact, table, diagram$/ } },
  { name: 'missing kind', doc: { td, model: {} }, expect: { type: 'refused', reason: /^missing `kind` — this build renders response/ } },
  { name: 'kind not a string', doc: { td, kind: 7, model: {} }, expect: { type: 'refused', reason: /^unknown kind "7"/ } },
  // version
  { name: 'td missing (the text\'s refusal)', doc: { kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: 'missing `td` version field — this build speaks TDSP 0.4' } },
  { name: 'td null', doc: { td: null, kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: 'missing `td` version field — this build speaks TDSP 0.4' } },
  { name: 'td 0.4 as a number', doc: { td: 0.4, kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: '`td` is the number 0.4 — send it as a string: "td": "0.4"' } },
  { name: 'td "0.1" accepted', doc: { td: '0.1', kind: 'response', model: { layman: 'x' } }, expect: { type: 'present' } },
  { name: 'td "0.9" accepted', doc: { td: '0.9', kind: 'response', model: { layman: 'x' } }, expect: { type: 'present' } },
  { name: 'td "0" accepted', doc: { td: '0', kind: 'response', model: { layman: 'x' } }, expect: { type: 'present' } },
  { name: 'td "1.0" refused', doc: { td: '1.0', kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: 'TDSP "1.0" is not supported — this build speaks TDSP 0.4 (major version 0 only)' } },
  { name: 'td "2" refused', doc: { td: '2', kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: /^TDSP "2" is not supported/ } },
  { name: 'td garbage', doc: { td: 'v0.4', kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: /^`td` "v0.4" is not a TDSP version/ } },
  { name: 'td boolean', doc: { td: true, kind: 'response', model: { layman: 'x' } }, expect: { type: 'refused', reason: /^`td` "true" is not a TDSP version|^`td` true is not/ } },
  // ops
  { name: 'op present explicit', doc: { ...ok('response', { layman: 'x' }), op: 'present' }, expect: { type: 'present' } },
  { name: 'op update', doc: { ...ok('response', { layman: 'x' }), op: 'update' }, expect: { type: 'update' } },
  { name: 'op update needs kind', doc: { td, op: 'update', id: 'x', model: {} }, expect: { type: 'refused', reason: /^missing `kind`/ } },
  { name: 'op update needs model', doc: { td, op: 'update', id: 'x', kind: 'response' }, expect: { type: 'refused', reason: /needs a `model` object/ } },
  { name: 'op retire', doc: { td, op: 'retire', id: 'x' }, expect: { type: 'retire', id: 'x' } },
  { name: 'retire without id (the text\'s refusal)', doc: { td, op: 'retire' }, expect: { type: 'refused', reason: '`retire` needs the `id` of the surface to take off the bench' } },
  { name: 'op unknown', doc: { td, op: 'explode', id: 'x' }, expect: { type: 'refused', reason: /^unknown op "explode" — use present, update or retire/ } },
  // ids
  { name: 'id 128 characters', doc: ok('response', { layman: 'x' }, { id: 'a'.repeat(128) }), expect: { type: 'present', id: 'a'.repeat(128) } },
  { name: 'id 129 characters', doc: ok('response', { layman: 'x' }, { id: 'a'.repeat(129) }), expect: { type: 'refused', reason: /^id "a+…" is not allowed/ } },
  { name: 'id empty', doc: ok('response', { layman: 'x' }, { id: '' }), expect: { type: 'refused', reason: /^id "" is not allowed/ } },
  { name: 'id with a space', doc: ok('response', { layman: 'x' }, { id: 'a b' }), expect: { type: 'refused', reason: /^id "a b" is not allowed — use 1 to 128 characters/ } },
  { name: 'id with a slash', doc: ok('response', { layman: 'x' }, { id: '../etc' }), expect: { type: 'refused', reason: /is not allowed/ } },
  { name: 'id with an escape', doc: ok('response', { layman: 'x' }, { id: 'a\u001b[2J' }), expect: { type: 'refused', reason: /is not allowed/ } },
  { name: 'id a number', doc: ok('response', { layman: 'x' }, { id: 7 }), expect: { type: 'refused', reason: /^id "7" is not allowed/ } },
  { name: 'id with all allowed characters', doc: ok('response', { layman: 'x' }, { id: 'A-z_0.9:x' }), expect: { type: 'present', id: 'A-z_0.9:x' } },
  { name: 'id made up from kind and title', doc: { td, kind: 'response', title: 'Hello', model: { layman: 'x' } }, expect: { type: 'present', id: madeUpId('response', 'Hello'), title: 'Hello' } },
  { name: 'id made up with no title', doc: { td, kind: 'table', model: { columns: [], rows: [] } }, expect: { type: 'present', id: madeUpId('table', undefined), title: 'Table' } },
  // titles
  { name: 'title missing becomes the default', doc: ok('decision', { question: 'q', options: [{ name: 'a' }] }), expect: { type: 'present', title: 'Decision' } },
  { name: 'title 200 characters', doc: ok('response', { layman: 'x' }, { title: 't'.repeat(200) }), expect: { type: 'present', title: 't'.repeat(200) } },
  { name: 'title 201 characters', doc: ok('response', { layman: 'x' }, { title: 't'.repeat(201) }), expect: { type: 'refused', reason: 'the title is 201 characters — keep it to 200 or fewer' } },
  { name: 'title not a string', doc: ok('response', { layman: 'x' }, { title: ['x'] }), expect: { type: 'refused', reason: /^`title` must be a string/ } },
  // shapes and sizes
  { name: 'not JSON', doc: '{"td": "0.4", kind: response}', expect: { type: 'refused', reason: /^the surface is not valid JSON/ } },
  { name: 'JSON text of a valid surface', doc: JSON.stringify(ok('response', { layman: 'x' })), expect: { type: 'present' } },
  { name: 'an array', doc: '[]', expect: { type: 'refused', reason: /^a surface is a JSON object/ } },
  { name: 'a string', doc: '"hello"', expect: { type: 'refused', reason: /^a surface is a JSON object/ } },
  { name: 'null', doc: null, expect: { type: 'refused', reason: /^a surface is a JSON object/ } },
  { name: 'a document of 256 KiB fits', doc: JSON.stringify(ok('response', { layman: 'x', body: 'b'.repeat(256 * 1024 - 100) })), expect: { type: 'present' } },
  { name: 'a document over 256 KiB', doc: JSON.stringify(ok('response', { layman: 'x', body: 'b'.repeat(256 * 1024) })), expect: { type: 'refused', reason: /^the surface is 257 KiB — a surface document is at most 256 KiB/ } },
  { name: 'a parsed document over 256 KiB', doc: ok('response', { layman: 'x', body: 'b'.repeat(300 * 1024) }), expect: { type: 'refused', reason: /^the surface is 301 KiB/ } },
  // hostile strings
  { name: 'a 10 MB string as text', doc: `{"td":"0.4","kind":"response","model":{"layman":"${'x'.repeat(10 * 1024 * 1024)}"}}`, expect: { type: 'refused', reason: /^the surface is 10241 KiB/ } },
  { name: 'a 10 MB string parsed', doc: ok('response', { layman: 'x'.repeat(10 * 1024 * 1024) }), expect: { type: 'refused', reason: /^the surface is 10241 KiB/ } },
  { name: 'escape sequences in a layman are kept as data', doc: ok('response', { layman: '\u001b]0;pwned\u0007\u001b[2J\u009b31m' }), expect: { type: 'present' } },
  { name: 'newlines and carriage returns in a title', doc: ok('response', { layman: 'x' }, { title: 'a\r\nrm -rf /\r' }), expect: { type: 'present', title: 'a\r\nrm -rf /\r' } },
  { name: 'deep nesting 10,000 levels as text', doc: `{"td":"0.4","kind":"response","model":{"layman":"x","deep":${deep(10_000)}}}`, expect: { type: 'refused', reason: 'the surface nests deeper than 64 levels — flatten the model' } },
  { name: 'deep nesting 10,000 levels parsed', doc: ok('response', { layman: 'x', deep: deepObj(10_000) }), expect: { type: 'refused', reason: 'the surface nests deeper than 64 levels — flatten the model' } },
  { name: 'deep nesting 100,000 levels of arrays as text (over the size too)', doc: deep(150_000), expect: { type: 'refused', reason: /^the surface is/ } },
  { name: 'nesting of 60 levels is fine', doc: ok('response', { layman: 'x', deep: deepObj(58) }), expect: { type: 'present' } },
  { name: '__proto__ key does nothing odd', doc: '{"td":"0.4","kind":"response","id":"p","model":{"layman":"x","__proto__":{"polluted":true}}}', expect: { type: 'present', id: 'p' } },
];

function summary(c: Checked): Record<string, unknown> {
  if (c.type === 'present' || c.type === 'update') return { type: c.type, id: c.doc.id, title: c.doc.title, kind: c.doc.kind };
  if (c.type === 'retire') return { type: 'retire', id: c.id };
  if (c.type === 'refused') return { type: 'refused', reason: c.reason };
  return { type: c.type, reason: (c as { reason?: string }).reason };
}

describe('checkSurface strict (MCP, CLI)', () => {
  it('has a table of at least 60 documents', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
  });
  for (const row of ROWS) {
    it(row.name, () => {
      const got = summary(checkSurface(row.doc, { strict: true }));
      expect(got.type).toBe(row.expect.type);
      if (row.expect.type === 'refused') {
        if (typeof row.expect.reason === 'string') expect(got.reason).toBe(row.expect.reason);
        else expect(String(got.reason)).toMatch(row.expect.reason);
        // one sentence: no line breaks
        expect(String(got.reason)).not.toMatch(/\n/);
      } else {
        for (const [k, v] of Object.entries(row.expect)) expect(got[k]).toEqual(v);
      }
    });
  }
});

describe('checkSurface lenient (file, transcript, agent)', () => {
  it('never refuses JSON: every strict refusal of JSON becomes an unclassified card with the reason', () => {
    for (const row of ROWS) {
      const strict = checkSurface(row.doc, { strict: true });
      if (strict.type !== 'refused') continue;
      const lenient = checkSurface(row.doc, { strict: false });
      if (strict.reason.startsWith('the surface is not valid JSON')) {
        expect(lenient.type).toBe('not-json');
        continue;
      }
      expect(lenient.type, row.name).toBe('unclassified');
      if (lenient.type !== 'unclassified') continue;
      expect(lenient.reason).toBe(strict.reason);
      expect(lenient.doc.kind).toBe('unclassified');
      expect(lenient.doc.model.reason).toBe(strict.reason);
      expect(typeof lenient.doc.model.raw).toBe('string');
      expect(lenient.doc.id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
  });
  it('keeps the raw text and a valid id of the payload', () => {
    const text = '{"td":"0.4","kind":"hologram","id":"h1","model":{}}';
    const c = checkSurface(text, { strict: false });
    expect(c).toMatchObject({ type: 'unclassified', doc: { id: 'h1', kind: 'unclassified', model: { raw: text } } });
  });
  it('uses the fallback id when given (a file\'s card)', () => {
    const c = checkSurface('{"td":1}', { strict: false, fallbackId: 'unclassified-file' });
    expect(c).toMatchObject({ type: 'unclassified', doc: { id: 'unclassified-file' } });
  });
  it('lets a person\'s route make a comment', () => {
    const c = checkSurface({ td, kind: 'comment', model: { text: 'mine' } }, { strict: true, person: true });
    expect(c.type).toBe('present');
  });
});

describe('update', () => {
  const existing = () => ({ kind: 'response' as const, model: { layman: 'old', body: 'b' } });
  it('merges the model into the existing surface', () => {
    const c = checkSurface({ td, op: 'update', kind: 'response', id: 'r', model: { body: 'new' } }, { strict: true, existing });
    expect(c).toMatchObject({ type: 'update', doc: { id: 'r', title: 'Response', model: { layman: 'old', body: 'new' } } });
  });
  it('adds a new id, which must then be complete', () => {
    const c = checkSurface({ td, op: 'update', kind: 'response', id: 'r', model: { body: 'new' } }, { strict: true, existing: () => undefined });
    expect(c).toMatchObject({ type: 'refused', reason: /needs a `layman`/ });
  });
  it('checks only the fields given when there is no bench (CLI)', () => {
    expect(checkSurface({ td, op: 'update', kind: 'response', id: 'r', model: { body: 'new' } }, { strict: true }).type).toBe('update');
    expect(checkSurface({ td, op: 'update', kind: 'response', id: 'r', model: { register: 'nope' } }, { strict: true }).type).toBe('refused');
  });
});

describe('ids and measures', () => {
  it('makes the same id from the same kind and title', () => {
    expect(madeUpId('response', 'A')).toBe(madeUpId('response', 'A'));
    expect(madeUpId('response', 'A')).not.toBe(madeUpId('response', 'B'));
    expect(madeUpId('response', undefined)).toMatch(/^response-[0-9a-f]{8}$/);
  });
  it('measures depth iteratively', () => {
    expect(measure(deepObj(100_000)).tooDeep).toBe(true);
    expect(measure({ a: [1, 2, { b: 3 }] }).depth).toBe(3);
  });
});

describe('registry', () => {
  it('lists every kind with dismiss among its actions', () => {
    expect(catalogue().map((k) => k.kind)).toEqual(['response', 'decision', 'question', 'change', 'artifact', 'table', 'diagram', 'comment', 'unclassified']);
    for (const k of KINDS) expect(k.actions).toContain('dismiss');
    expect(KINDS.find((k) => k.kind === 'comment')!.actions).toEqual(['dismiss']);
    expect(catalogueTable()).toMatch(/^kind +shelf +actions/);
  });
});
