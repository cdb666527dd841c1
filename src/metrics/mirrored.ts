// Metrics whose values are kept elsewhere (a cache's or a pool's own counts), read at each scrape.
import { Counter, Gauge } from 'prom-client'

/** A counter mirroring a count kept elsewhere: set to it at each scrape. */
export const mirroredCounter = (name: string, help: string, read: () => number) =>
  new Counter({
    name,
    help,
    registers: [],
    collect() {
      this.reset()
      this.inc(read())
    },
  })

/** A gauge read at each scrape. */
export const mirroredGauge = (name: string, help: string, read: () => number) =>
  new Gauge({
    name,
    help,
    registers: [],
    collect() {
      this.set(read())
    },
  })
