/** Order statistics of the benchmarks' samples. Pure. */

/** The p-th percentile (0-100) of values sorted ascending; NaN for none. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The mean of values and the half-width of its 95% confidence interval (normal approximation). */
export function meanWithInterval(values: number[]): { mean: number; halfWidth: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, halfWidth: Number.NaN };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { mean, halfWidth: 1.96 * Math.sqrt(variance / n) };
}

/** The median of values in any order (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
