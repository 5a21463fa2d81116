/** Latency summaries and printing helpers shared by the bench parts. */

export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

export function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), mean };
}

export const ms = (v: number) => `${v.toFixed(1)} ms`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const fixed = (v: number, d = 2) => v.toFixed(d);
