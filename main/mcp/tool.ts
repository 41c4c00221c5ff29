/**
 * One MCP tool as a service offers it to the app's MCP server (main/mcp/server.ts).
 * Services (surfaces, tick) export lists of these; the server registers them with the
 * official SDK. `inputSchema` makes a zod raw shape, as the SDK's `registerTool` takes, from
 * the zod it is given: zod (~3 MiB of the service's heap) is loaded with the SDK by the first
 * agent that connects, not at the core's start.
 */
import type { ZodRawShape, z as Zod } from 'zod';

/** zod's `z`, as the MCP server hands it to a tool's `inputSchema`. */
export type Z = typeof Zod;

export interface ToolResult {
  /** Text for the model (JSON stringified when `json` is given instead). */
  text?: string;
  json?: unknown;
  isError?: boolean;
}

export interface ToolContext {
  /** Aborted when the client goes away or cancels. */
  signal: AbortSignal;
  /** The pane the calling agent runs in, from the stdio shim's environment ($TD_PANE_ID), when known. */
  askingPaneId?: string;
  /** The pid of the process that started the stdio shim (the agent), when known. */
  clientPid?: number;
}

export interface ToolDef {
  name: string;
  description: string;
  inputSchema: (z: Z) => ZodRawShape;
  /** Whether the tool writes (refused while the "MCP writes" setting is off). */
  writes: boolean;
  handler(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}
