/**
 * What the core and the renderer both need of TDSP 0.4, in one place: the version, the
 * limits, the shelves in bench order, and each kind's shelf, actions and default title.
 * The core's registry (main/surfaces/registry.ts) adds each kind's JSON Schema and
 * validates with it; the renderer draws shelves, buttons and the composer's limit from
 * this file. Plain data and pure functions, beside the contract: importable from any side.
 */
import type { CatalogueKind, Shelf, SurfaceKind } from './contract.ts';

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
  /** An action's comment (and a brief's note), in UTF-8 bytes. */
  commentBytes: 4 * 1024,
  /** A title, in characters. */
  titleChars: 200,
  /** An id: 1 to 128 characters of A-Za-z0-9._:- */
  idChars: 128,
  /** How deep a document may nest (objects and arrays). */
  depth: 64,
} as const;

export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The shelves, in the order the bench shows them. */
export const SHELVES: readonly Shelf[] = ['Decide', 'Review', 'Replies', 'Files', 'Data', 'Notes', 'Unsorted'];

/** A kind as both sides see it: the catalogue entry and how its actions behave. */
export interface KindRules extends CatalogueKind {
  /** Actions that need a `target` (an option name, or `path#hunk-N`); only these name it in the typed line. */
  targeted: string[];
  /** Actions that need a `comment` (the text a person wrote). */
  commented: string[];
  /** Actions shown on the card but never typed into the terminal (routed to a viewer). */
  viewOnly: string[];
}

/** The kinds in the order the catalogue lists them. */
export const KIND_RULES: readonly KindRules[] = [
  {
    kind: 'response', shelf: 'Replies', defaultTitle: 'Response', offeredToAgents: true,
    summary: 'A reply: a plain-English `layman` explanation, an optional Markdown `body`, and a `register`.',
    actions: ['ack', 'comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: [],
  },
  {
    kind: 'decision', shelf: 'Decide', defaultTitle: 'Decision', offeredToAgents: true,
    summary: 'A decision to take: a `question`, `options[]` of {name, recommended?, case?, cost?}, and Markdown `context`.',
    actions: ['approve', 'choose', 'reject', 'comment', 'dismiss'], targeted: ['choose'], commented: ['comment'], viewOnly: [],
  },
  {
    kind: 'question', shelf: 'Decide', defaultTitle: 'Question', offeredToAgents: true,
    summary: 'A question: `question`, optional `options[]` of {name, detail?}, `multiple` and `free_text`.',
    actions: ['choose', 'answer', 'comment', 'dismiss'], targeted: ['choose'], commented: ['answer', 'comment'], viewOnly: [],
  },
  {
    kind: 'change', shelf: 'Review', defaultTitle: 'Change', offeredToAgents: true,
    summary: 'A change to review: `summary` and `files[]` of {path, diff} (unified diff; hunks numbered per file from 1).',
    actions: ['approve', 'reject', 'approve_part', 'reject_part', 'comment', 'dismiss'],
    targeted: ['approve_part', 'reject_part'], commented: ['comment'], viewOnly: [],
  },
  {
    kind: 'artifact', shelf: 'Files', defaultTitle: 'Artifact', offeredToAgents: true,
    summary: 'A file you made: `location` (absolute path, or http, https or file URL), `media_type`, `summary`.',
    // `note`: a decision brief's note, posted from the document viewer (the text is the comment).
    actions: ['open', 'approve', 'reject', 'comment', 'note', 'dismiss'], targeted: [], commented: ['comment', 'note'], viewOnly: ['open'],
  },
  {
    kind: 'table', shelf: 'Data', defaultTitle: 'Table', offeredToAgents: true,
    summary: 'A table: `columns[]`, `rows[][]` and a `caption`.',
    actions: ['comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: [],
  },
  {
    kind: 'diagram', shelf: 'Data', defaultTitle: 'Diagram', offeredToAgents: true,
    summary: 'A diagram: `format` (mermaid or svg), `source` and a `caption`.',
    actions: ['open', 'comment', 'dismiss'], targeted: [], commented: ['comment'], viewOnly: ['open'],
  },
  {
    kind: 'comment', shelf: 'Notes', defaultTitle: 'Note', offeredToAgents: false,
    summary: 'A person\'s own note: `text`, and `on` (the id of the surface it is about). Not offered to agents.',
    actions: ['dismiss'], targeted: [], commented: [], viewOnly: [],
  },
  {
    kind: 'unclassified', shelf: 'Unsorted', defaultTitle: 'Unclassified surface', offeredToAgents: false,
    summary: 'What arrived but could not be read as a surface: the raw payload and the reason.',
    actions: ['dismiss'], targeted: [], commented: [], viewOnly: [],
  },
];

const BY_KIND = new Map<string, KindRules>(KIND_RULES.map((k) => [k.kind, k]));

export function kindRules(kind: string): KindRules | undefined {
  return BY_KIND.get(kind);
}

/** The actions a kind offers (none for a kind this build does not know). */
export function actionsOf(kind: SurfaceKind | string): readonly string[] {
  return BY_KIND.get(kind)?.actions ?? [];
}
