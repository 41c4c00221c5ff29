/**
 * A "since" a person gives (the palette's date field, `--since`, an agent's `since`) as a time:
 * a date alone (2026-12-01) is that day's start where the person is (local midnight, as the
 * palette shows times and the Usage view counts days), where `Date.parse` would take it as
 * midnight UTC (hours off, either way); a time with a date (2026-12-01T09:30, local; or with
 * its zone) as `Date.parse` reads it. NaN when it is not a date.
 */
export function sinceTime(since: string): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(since.trim());
  if (!day) return Date.parse(since);
  const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
  const t = new Date(y, m - 1, d);
  // (Date rolls 2026-02-31 over to March: not a date.)
  return t.getFullYear() === y && t.getMonth() === m - 1 && t.getDate() === d ? t.getTime() : Number.NaN;
}
