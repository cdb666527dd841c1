// The bench's rounds (scripts/bench/rounds.ts): a figure measured in rounds is its median round,
// a real one (never an average), and its verdict sees every round's runs and fairness problems.
import t from 'tap'
import type { Compared, Fairness } from '../../scripts/bench/equal-work.ts'
import type { Figure } from '../../scripts/bench/measure.ts'
import { medianOf, medianValue, mediansOf, middleIndex } from '../../scripts/bench/rounds.ts'

const figure = (name: string, requestsPerSecond: number, ratio?: number): Figure => ({
  name,
  requestsPerSecond,
  p50Ms: 1,
  p99Ms: 2,
  non2xx: 0,
  errors: 0,
  ...(ratio === undefined ? {} : { ratio, ratioTo: 'peer' }),
})
const fairness = (problems: string[] = []): Fairness => ({
  figure: 'f',
  work: 'cached',
  answers: { paths: 1, peer: true, differences: [] },
  sql: null,
  loadsPerRequest: null,
  sqlProblems: [],
  problems,
})
const round = (ours: number, peer: number, problems: string[] = []): Compared => ({
  peer: figure('peer', peer),
  ours: figure(`ours ${ours}`, ours, Math.round((ours / peer) * 100) / 100),
  fairness: fairness(problems),
})

t.test('the median round is the one with the middle ratio, whatever the order', async (t) => {
  const median = medianOf([round(900, 1000), round(500, 1000), round(700, 1000)])
  t.equal(median.ours.name, 'ours 700', 'the middle ratio, 0.7')
  t.equal(median.peer!.requestsPerSecond, 1000, "with that round's peer")
  t.same(median.values, [0.9, 0.5, 0.7], 'every round, in the order run')
  t.same(median.ours.rounds, [0.9, 0.5, 0.7], 'printed beside the figure')
  t.equal(median.runs.length, 6, "every round's runs, peers included, for the verdict's 2xx check")
})

t.test('by ratio, not by req/s: a fast round against a faster peer is not the median', async (t) => {
  // Ratios 0.5, 0.6, 0.8: the highest req/s (1600, its peer 3200) is the lowest ratio.
  const median = medianOf([round(1600, 3200), round(600, 1000), round(800, 1000)])
  t.equal(median.ours.name, 'ours 600')
})

t.test('without a ratio, req/s decides; an even count takes the lower middle', async (t) => {
  const alone = (rps: number): Compared => ({ ours: figure(`alone ${rps}`, rps), fairness: fairness() })
  t.equal(medianOf([alone(30), alone(10), alone(20)]).ours.name, 'alone 20')
  t.equal(middleIndex([4, 1, 3, 2]), 3, 'of 1, 2, 3, 4: the 2')
  t.equal(medianValue([250, 190, 210]), 210)
})

t.test("one round's unequal work shows in the median's fairness", async (t) => {
  const median = medianOf([round(900, 1000), round(700, 1000), round(500, 1000, ['other data'])])
  t.equal(median.ours.name, 'ours 700')
  t.same(median.fairness.problems, ['other data'], 'the median round was fair, another was not')
})

t.test('mediansOf takes each figure of a set apart', async (t) => {
  const medians = mediansOf([
    { a: round(100, 1000), b: round(900, 1000) },
    { a: round(300, 1000), b: round(800, 1000) },
    { a: round(200, 1000), b: round(700, 1000) },
  ])
  t.equal(medians.a.ours.name, 'ours 200')
  t.equal(medians.b.ours.name, 'ours 800')
})
