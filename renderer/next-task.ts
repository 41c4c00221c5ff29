/**
 * A task of its own for the page's next piece of work, queued behind what is queued already:
 * a key typed (the browser runs input first), a socket's message (a key's echo on the first
 * paint, a snapshot's answer). A window attaching builds in pieces this way (issue 38, item 4;
 * docs/spec/window.md "A window attaching, in order"): each piece one task, the page answering
 * between them. A MessageChannel's message, not setTimeout (clamped to 4 ms once nested) nor
 * scheduler.yield (its continuation goes before the socket's messages), nor a microtask (no
 * turn for anything else at all).
 */
let channel: MessageChannel | undefined;
const queued: Array<() => void> = [];

export function nextTask(f: () => void): void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const g = queued.shift();
      g?.();
    };
    // Node (the unit tests): the port must not keep the process alive.
    (channel.port1 as { unref?: () => void }).unref?.();
  }
  queued.push(f);
  channel.port2.postMessage(null);
}
