// Figures measured in rounds, each round on a server process of its own, and the median round
// reported. One process can run a few per cent faster or slower than another for its whole life
// (where V8 places what it allocates, a CPU's clock), and two shared cores add noise of their
// own: a verdict on one run is a verdict on one draw. The median of three is the middle draw.
import type { Compared } from './equal-work.ts'
import type { Figure } from './measure.ts'

/** Rounds per figure (BENCH_ROUNDS, 3 by default; 1 for a quick look). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))

/** A compared figure's median round, with every round's runs (a verdict needs them all 2xx) and values. */
export interface MedianCompared extends Compared {
  /** Every round's runs, the peer's included. */
  runs: Figure[]
  /** What each round gave, in the order they ran: the ratio to the peer or baseline, else req/s. */
  values: number[]
}

/** What a compared figure is judged by: its ratio when it has one, else its req/s. */
const valueOf = (compared: Compared) => compared.ours.ratio ?? compared.ours.requestsPerSecond

/** The middle value of an odd count, the lower middle of an even one: a real round, never an average. */
export function middleIndex(values: number[]): number {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value)
  return order[Math.floor((order.length - 1) / 2)]!.index
}

/** The median round of one figure measured in `rounds`, the others kept for its verdict and record. */
export function medianOf(rounds: Compared[]): MedianCompared {
  if (rounds.length === 0) throw new Error('medianOf: no rounds')
  const values = rounds.map(valueOf)
  const middle = rounds[middleIndex(values)]!
  const runs = rounds.flatMap((round) => (round.peer ? [round.peer, round.ours] : [round.ours]))
  // Its verdict counts every round's fairness problems: a round with unequal work spoils the median.
  const fairness = { ...middle.fairness, problems: rounds.flatMap((round) => round.fairness.problems) }
  return { ...middle, ours: { ...middle.ours, rounds: values }, fairness, runs, values }
}

/** The median of each figure of a set measured once per round: `rounds[i][key]` is round i's. */
export function mediansOf<Key extends string>(rounds: Record<Key, Compared>[]): Record<Key, MedianCompared> {
  const keys = Object.keys(rounds[0]!) as Key[]
  return Object.fromEntries(keys.map((key) => [key, medianOf(rounds.map((round) => round[key]))])) as Record<
    Key,
    MedianCompared
  >
}

/** The median of plain numbers (memory): the middle one, as for figures. */
export const medianValue = (values: number[]) => values[middleIndex(values)]!
