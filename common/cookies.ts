/** Cookie headers, read: shared by the browser's door (main/door/) and the device door (main/devices/). Pure. */

/** The value of the cookie `name` from a Cookie header (the device door's cookie too). */
export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
