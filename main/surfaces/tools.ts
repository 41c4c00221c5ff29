/**
 * The surface MCP tools: `present_surface` (checks strictly, saves the document to the
 * pane folder as `<id>.json` and puts it on the bench; a retire deletes that file) and
 * `surface_catalogue` (the registry's kinds, shelves and actions).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolContext, ToolDef, ToolResult } from '../mcp/tool.ts';
import type { PaneServiceApi } from '../services.ts';
import { LIMITS, TDSP_VERSION, catalogue } from './registry.ts';
import type { SurfaceService } from './service.ts';
import { writeAtomic } from './store.ts';
import { checkSurface } from './validate.ts';

/** A refusal as the tool answers it: one sentence, ending in a full stop. */
export const refused = (reason: string): string => `Refused: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}`;

/** The pane an agent runs in: by its pid (or the shim's parent), else the shim's $TD_PANE_ID. */
export function paneOfAgent(panes: PaneServiceApi, pid: number | undefined, ctx: ToolContext): string | undefined {
  for (const p of [pid, ctx.clientPid]) {
    if (typeof p === 'number' && p > 0) {
      const hit = panes.paneOfPid(p);
      if (hit) return hit;
    }
  }
  if (ctx.askingPaneId && panes.get(ctx.askingPaneId)) return ctx.askingPaneId;
  return undefined;
}

export function surfaceTools(service: SurfaceService, panes: PaneServiceApi): ToolDef[] {
  const present: ToolDef = {
    name: 'present_surface',
    description: [
      `Show a surface (TDSP ${TDSP_VERSION}) on the workbench of the Terminal Delight pane you run in: a reply, a decision, a question, a change to review, a file you made, a table or a diagram.`,
      'Pass your own process id as `pid` and the document as `surface`: {"td":"0.4","op":"present"|"update"|"retire","kind":…,"id":…,"title":…,"model":{…}}.',
      'Always send an `id`. The document is checked strictly; when refused, the answer says why. Call surface_catalogue for the kinds and their fields.',
      'When a person acts on the card, one line like `[workbench:<your $TD_TAG>] approve on surface <id>` is typed into your terminal.',
    ].join(' '),
    inputSchema: (z) => ({
      pid: z.number().int().positive().optional().describe('Your own process id (the agent\'s), so the app can find your pane.'),
      surface: z.union([z.record(z.string(), z.unknown()), z.string()]).describe('The TDSP 0.4 document: an object (or its JSON text).'),
    }),
    writes: true,
    handler(args, ctx): ToolResult {
      const paneId = paneOfAgent(panes, typeof args.pid === 'number' ? args.pid : undefined, ctx);
      if (!paneId) {
        return {
          isError: true,
          text: `Cannot tell which pane you run in: ${typeof args.pid === 'number' ? `pid ${args.pid} is in no Terminal Delight pane` : 'no pid was given'} — pass your own process id as \`pid\`, and run inside a Terminal Delight pane.`,
        };
      }
      const checked = checkSurface(args.surface, { strict: true, existing: (id) => service.store.get(paneId, id) });
      if (checked.type === 'refused' || checked.type === 'not-json' || checked.type === 'unclassified') {
        return { isError: true, text: refused(checked.reason) };
      }
      const folder = panes.folder(paneId);
      if (checked.type === 'retire') {
        const file = path.join(folder, `${checked.id}.json`);
        fs.rmSync(file, { force: true });
        const r = service.ingest(paneId, { td: TDSP_VERSION, op: 'retire', id: checked.id }, 'mcp', { strict: true });
        return { json: { ok: true, retired: r.retiredId ?? checked.id, pane: paneId } };
      }
      // Save what the bench will hold (an update already merged), then put it on the bench.
      const d = checked.doc;
      const text = `${JSON.stringify({ td: TDSP_VERSION, kind: d.kind, id: d.id, title: d.title, model: d.model }, null, 2)}\n`;
      const name = `${d.id}.json`;
      writeAtomic(path.join(folder, name), text);
      const r = service.ingest(paneId, text, 'mcp', { strict: true, file: name });
      if (r.refusal) return { isError: true, text: refused(r.refusal) };
      return { json: { ok: true, id: d.id, kind: d.kind, shelf: r.surface?.shelf, pane: paneId, file: path.join(folder, name) } };
    },
  };

  const cat: ToolDef = {
    name: 'surface_catalogue',
    description: 'List the surface kinds this Terminal Delight renders (TDSP 0.4): for each, its shelf, the actions a person can take, whether agents may send it, and its model fields.',
    inputSchema: () => ({}),
    writes: false,
    handler: () => ({
      json: {
        td: TDSP_VERSION,
        kinds: catalogue(),
        limits: {
          documentBytes: LIMITS.documentBytes,
          titleChars: LIMITS.titleChars,
          id: '1 to 128 characters of A-Za-z0-9._:-',
          surfacesPerPane: LIMITS.surfacesPerPane,
          commentBytes: LIMITS.commentBytes,
        },
      },
    }),
  };

  return [present, cat];
}
