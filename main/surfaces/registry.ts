/**
 * The one registry of TDSP 0.4 kinds: for each kind, the JSON Schema of its model,
 * its shelf, the actions it offers, its default title, whether agents may send it,
 * and a one-line summary. Everything that validates (validate.ts), lists kinds (the
 * catalogue: CLI and MCP) or renders (the renderer imports this file) asks here.
 *
 * Plain data and pure functions only: no Node imports, so Vite can bundle it.
 */
import type { CatalogueKind, Shelf, SurfaceKind } from '../../preload/contract.ts';

/** The TDSP version this build speaks. */
export const TDSP_VERSION = '0.4';
/** The major version accepted ("0.x"). */
export const TDSP_MAJOR = 0;

export const LIMITS = {
  /** Surfaces kept per pane (the newest). */
  surfacesPerPane: 64,
  /** One surface document, in UTF-8 bytes. */
  documentBytes: 256 * 1024,
  /** Tail of a transcript read for ```td blocks. */
  transcriptTailBytes: 256 * 1024,
  /** File poll interval. */
  pollMs: 1000,
  /** An action's comment, in UTF-8 bytes. */
  commentBytes: 4 * 1024,
  /** A title, in characters. */
  titleChars: 200,
  /** An id: 1 to 128 characters of A-Za-z0-9._:- */
  idChars: 128,
  /** How deep a document may nest (objects and arrays). */
  depth: 64,
} as const;

export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A JSON Schema (draft 2020-12 subset that ajv compiles). */
export type JsonSchema = Record<string, unknown>;

export interface KindSpec extends CatalogueKind {
  /** JSON Schema of the kind's `model`. Every property carries a `description`, used in refusals. */
  schema: JsonSchema;
  /** Actions that need a `target` (an option name, or `path#hunk-N`). */
  targeted: string[];
  /** Actions that need a `comment` (the text a person wrote). */
  commented: string[];
  /** Actions shown on the card but never typed into the terminal (routed to a viewer). */
  viewOnly: string[];
}

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });

function model(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: true };
}

/** The kinds in the order the catalogue lists them. */
export const KINDS: readonly KindSpec[] = [
  {
    kind: 'response', shelf: 'Replies', defaultTitle: 'Response', offeredToAgents: true,
    summary: 'A reply: a plain-English `layman` explanation, an optional Markdown `body`, and a `register`.',
    actions: ['ack', 'comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: [],
    schema: model({
      layman: str('the plain-English explanation of the whole reply', { minLength: 1 }),
      body: str('the reply itself, in Markdown'),
      register: { enum: ['answer', 'progress', 'done', 'blocked', 'warning'], description: 'one of answer, progress, done, blocked or warning' },
    }, ['layman']),
  },
  {
    kind: 'decision', shelf: 'Decide', defaultTitle: 'Decision', offeredToAgents: true,
    summary: 'A decision to take: a `question`, `options[]` of {name, recommended?, case?, cost?}, and Markdown `context`.',
    actions: ['approve', 'choose', 'reject', 'comment', 'dismiss'], targeted: ['choose'], commented: ['comment'], viewOnly: [],
    schema: model({
      question: str('the decision to take, as a question', { minLength: 1 }),
      options: {
        type: 'array', minItems: 1, description: 'at least one option of {name, recommended?, case?, cost?}',
        items: model({
          name: str('the option\'s name', { minLength: 1 }),
          recommended: bool('whether this is the option you recommend'),
          case: str('the case for it'),
          cost: str('what it costs'),
        }, ['name']),
      },
      context: str('background, in Markdown'),
    }, ['question', 'options']),
  },
  {
    kind: 'question', shelf: 'Decide', defaultTitle: 'Question', offeredToAgents: true,
    summary: 'A question: `question`, optional `options[]` of {name, detail?}, `multiple` and `free_text`.',
    actions: ['choose', 'answer', 'comment', 'dismiss'], targeted: ['choose'], commented: ['answer', 'comment'], viewOnly: [],
    schema: model({
      question: str('the question to ask', { minLength: 1 }),
      options: {
        type: 'array', description: 'the options of {name, detail?}',
        items: model({ name: str('the option\'s name', { minLength: 1 }), detail: str('what the option means') }, ['name']),
      },
      multiple: bool('whether several options may be chosen'),
      free_text: bool('whether a written answer is welcome'),
    }, ['question']),
  },
  {
    kind: 'change', shelf: 'Review', defaultTitle: 'Change', offeredToAgents: true,
    summary: 'A change to review: `summary` and `files[]` of {path, diff} (unified diff; hunks numbered per file from 1).',
    actions: ['approve', 'reject', 'approve_part', 'reject_part', 'comment', 'dismiss'],
    targeted: ['approve_part', 'reject_part'], commented: ['comment'], viewOnly: [],
    schema: model({
      summary: str('what the change does'),
      files: {
        type: 'array', description: 'the changed files, as {path, diff} with a unified diff',
        items: model({ path: str('the file\'s path', { minLength: 1 }), diff: str('the unified diff of that file') }, ['path', 'diff']),
      },
    }, ['files']),
  },
  {
    kind: 'artifact', shelf: 'Files', defaultTitle: 'Artifact', offeredToAgents: true,
    summary: 'A file you made: `location` (absolute path, or http, https or file URL), `media_type`, `summary`.',
    // `note`: a decision brief's note, posted from the document viewer (the text is the comment).
    actions: ['open', 'approve', 'reject', 'comment', 'note', 'dismiss'], targeted: [], commented: ['comment', 'note'], viewOnly: ['open'],
    schema: model({
      location: str('an absolute path, or an http://, https:// or file:// address', { minLength: 1 }),
      media_type: str('the file\'s media type, such as text/markdown'),
      summary: str('what the file is'),
    }, ['location']),
  },
  {
    kind: 'table', shelf: 'Data', defaultTitle: 'Table', offeredToAgents: true,
    summary: 'A table: `columns[]`, `rows[][]` and a `caption`.',
    actions: ['comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: [],
    schema: model({
      columns: { type: 'array', items: { type: 'string' }, description: 'the column headings, as strings' },
      rows: {
        type: 'array', description: 'the rows, each an array of cells',
        items: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } },
      },
      caption: str('what the table shows'),
    }, ['columns', 'rows']),
  },
  {
    kind: 'diagram', shelf: 'Data', defaultTitle: 'Diagram', offeredToAgents: true,
    summary: 'A diagram: `format` (mermaid or svg), `source` and a `caption`.',
    actions: ['open', 'comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: ['open'],
    schema: model({
      format: { enum: ['mermaid', 'svg'], description: 'mermaid or svg' },
      source: str('the diagram\'s source text', { minLength: 1 }),
      caption: str('what the diagram shows'),
    }, ['format', 'source']),
  },
  {
    kind: 'comment', shelf: 'Notes', defaultTitle: 'Note', offeredToAgents: false,
    summary: 'A person\'s own note: `text`, and `on` (the id of the surface it is about). Not offered to agents.',
    actions: ['dismiss'], targeted: [], commented: [], viewOnly: [],
    schema: model({
      text: str('the note', { minLength: 1 }),
      on: str('the id of the surface the note is about'),
    }, ['text']),
  },
  {
    kind: 'unclassified', shelf: 'Unsorted', defaultTitle: 'Unclassified surface', offeredToAgents: false,
    summary: 'What arrived but could not be read as a surface: the raw payload and the reason.',
    actions: ['dismiss'], targeted: [], commented: [], viewOnly: [],
    schema: model({
      reason: str('why it could not be classified'),
      raw: str('the raw payload'),
    }, ['reason']),
  },
];

const BY_KIND = new Map<string, KindSpec>(KINDS.map((k) => [k.kind, k]));

export function kindSpec(kind: string): KindSpec | undefined {
  return BY_KIND.get(kind);
}

/** The kinds agents may send, in catalogue order. */
export function agentKinds(): SurfaceKind[] {
  return KINDS.filter((k) => k.offeredToAgents).map((k) => k.kind);
}

export function shelfOf(kind: SurfaceKind): Shelf {
  return BY_KIND.get(kind)?.shelf ?? 'Unsorted';
}

/** The catalogue: what `surface --catalogue`, `surface_catalogue` and the renderer list. */
export function catalogue(): CatalogueKind[] {
  return KINDS.map(({ kind, shelf, actions, defaultTitle, offeredToAgents, summary }) => ({
    kind, shelf, actions: [...actions], defaultTitle, offeredToAgents, summary,
  }));
}

/** The catalogue as a plain-text table (for `surface --catalogue`). */
export function catalogueTable(): string {
  const rows = [['kind', 'shelf', 'actions', 'agents', 'summary'], ...KINDS.map((k) => [
    k.kind, k.shelf, k.actions.join(', '), k.offeredToAgents ? 'yes' : 'no', k.summary,
  ])];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ')).join('\n') + '\n';
}
