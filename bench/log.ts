/** A benchmark's lines: kept for the summary `npm run bench` prints, and shown on stderr as they come. */
export function benchLog(tag: string): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return {
    lines,
    log: (l: string) => {
      lines.push(l);
      console.error(`[${tag}] ${l}`);
    },
  };
}
