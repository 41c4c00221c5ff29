/**
 * The device contract's shapes (docs/spec/devices.md), shared by the device door
 * (main/devices/) and the phone's page (renderer/phone/). Types only.
 */
import type { AgentStatus } from '../preload/contract.ts';

export type InboxKind = 'permission' | 'question' | 'decision' | 'change';

export interface InboxCard {
  paneId: string;
  surfaceId: string;
  kind: InboxKind;
  title: string;
  /** The question, or the change's summary. */
  text: string;
  /** What a tap may send: the card's buttons, each an action and its target. */
  buttons: Array<{ label: string; action: string; target?: string }>;
  /** Whether a typed answer (a comment) is taken. */
  freeText: boolean;
  /** The agent's name (claude, codex…) or the pane's title. */
  agent: string;
  pane: string;
  tag: string;
  folder: string;
  arrivedAt: string;
  /** The card's revision: when it last changed (a token bound to it goes stale with it). */
  revision: string;
  /** The machine it is from (its pane id is then qualified, `machine/paneId`) and the machine's colour; absent for this machine's own. */
  machine?: string;
  machineColour?: string;
}

export interface AgentRow {
  paneId: string;
  agent: string;
  title: string;
  folder: string;
  status: AgentStatus | 'ended';
  detail?: string;
  since?: string;
  /** The last non-empty lines of its screen, at most 5. */
  lastLines: string[];
  /** The machine it runs on (its pane id is then qualified, `machine/paneId`) and the machine's colour; absent for this machine's own. */
  machine?: string;
  machineColour?: string;
}
