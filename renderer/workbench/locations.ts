/** How an artifact's location is shown on its card. Pure. */

/** The file name at the end of a path or URL. */
export function baseName(location: string): string {
  const clean = location.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const name = clean.slice(clean.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name) || location;
  } catch {
    return name || location;
  }
}

/** Where the file is, short: the host of a URL, or the last two folders of a path. */
export function shortLocation(location: string): string {
  if (/^https?:\/\//i.test(location)) {
    try {
      return new URL(location).host;
    } catch {
      return location;
    }
  }
  const p = location.replace(/^file:\/\//i, '').replace(/[?#].*$/, '');
  const dirs = p.split('/').slice(0, -1).filter(Boolean);
  if (dirs.length <= 2) return `/${dirs.join('/')}`;
  return `…/${dirs.slice(-2).join('/')}`;
}

