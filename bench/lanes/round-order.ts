/**
 * Lane order of measured round `r` for `n` lanes: a balanced Latin square (Williams design), so
 * over every n rounds (2n when n is odd) each lane runs right after each other lane equally often.
 * A rotation would not do: it keeps the same neighbours, so one lane would always inherit the
 * aftermath (GC, page cache, a busy proxy) of the same heavy predecessor.
 */
export function roundOrder(n: number, r: number): number[] {
  if (n <= 0) return []
  // First row 0, 1, n-1, 2, n-2, ...; row k adds k to each entry (mod n).
  const first: number[] = []
  for (let i = 0, lo = 1, hi = n - 1; i < n; i++) {
    first.push(i === 0 ? 0 : i % 2 === 1 ? lo++ : hi--)
  }
  const period = n % 2 === 0 ? n : 2 * n
  const k = ((r % period) + period) % period
  const row = first.map((x) => (x + k) % n)
  // An odd square needs its mirror image as well to balance who follows whom.
  return k >= n ? row.reverse() : row
}
