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

/** The middle of `xs` (the upper of the two middles for an even count), as every bench's figure reads it. */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
