// A bounded queue that takes the accounts' work in fair turns, weighted by cost: the renderer's
// queue (post-html.ts), where one account's costly bodies must not make everyone else wait.
//
// Turns are self-clocked fair queueing (Golestani, 1994): a job is tagged with the cost its account
// has queued so far, counted from the tag of the job last taken (the virtual time), and the job
// with the smallest tag is taken next. An account that queued nothing lately starts at the virtual
// time, so its job goes ahead of the backlog of an account that queued much: a flooder's eighth
// body waits behind everybody else's first. Cost is what the body's rendering is estimated to
// take (render-cost.ts).
//
// Places are bounded. When they are all taken, a newcomer is admitted if some account holds more
// places than the newcomer: that account's newest job is pushed out ("longest queue drop"), so an
// account can be refused only while it holds as many places as anyone, never because others flood.

interface Waiting<T> {
  account: string
  item: T
  finish: number
  /** Arrival order: equal tags are taken first come, first served. */
  order: number
}

export type Admission<T> = { admitted: true; pushedOut?: T } | { admitted: false }

export class FairQueue<T> {
  private readonly waiting: Waiting<T>[] = []
  /** The finish tag of each account's newest waiting job; an account with none has no entry. */
  private readonly lastFinish = new Map<string, number>()
  private virtualTime = 0
  private arrivals = 0

  constructor(private readonly places: number) {}

  get size() {
    return this.waiting.length
  }

  /** Places held by `account`'s waiting jobs. */
  held(account: string) {
    let count = 0
    for (const job of this.waiting) if (job.account === account) count++
    return count
  }

  /** Queues `item` unless every place is taken by accounts holding no more than `account` does. */
  add(account: string, cost: number, item: T): Admission<T> {
    let pushedOut: T | undefined
    if (this.waiting.length >= this.places) {
      const victim = this.largestHolder()
      if (victim === undefined || this.held(victim) <= this.held(account)) return { admitted: false }
      pushedOut = this.removeNewest(victim)
    }
    const start = Math.max(this.virtualTime, this.lastFinish.get(account) ?? 0)
    const finish = start + Math.max(1, cost)
    this.lastFinish.set(account, finish)
    this.waiting.push({ account, item, finish, order: this.arrivals++ })
    return pushedOut === undefined ? { admitted: true } : { admitted: true, pushedOut }
  }

  /** The job with the smallest tag, out of the queue; undefined when none waits. */
  take(): T | undefined {
    let best = -1
    for (let i = 0; i < this.waiting.length; i++) {
      const job = this.waiting[i]!
      const chosen = this.waiting[best]
      if (
        chosen === undefined ||
        job.finish < chosen.finish ||
        (job.finish === chosen.finish && job.order < chosen.order)
      )
        best = i
    }
    if (best < 0) return undefined
    const [job] = this.waiting.splice(best, 1)
    this.virtualTime = job!.finish
    this.forgetIfIdle(job!.account)
    return job!.item
  }

  private largestHolder(): string | undefined {
    const counts = new Map<string, number>()
    let largest: string | undefined
    for (const job of this.waiting) {
      const count = (counts.get(job.account) ?? 0) + 1
      counts.set(job.account, count)
      if (largest === undefined || count > counts.get(largest)!) largest = job.account
    }
    return largest
  }

  private removeNewest(account: string): T {
    let newest = -1
    for (let i = 0; i < this.waiting.length; i++) if (this.waiting[i]!.account === account) newest = i
    const [job] = this.waiting.splice(newest, 1)
    // Its account's next job takes the pushed-out job's turn.
    const before = this.waiting.findLast((other) => other.account === account)
    if (before === undefined) this.lastFinish.delete(account)
    else this.lastFinish.set(account, before.finish)
    return job!.item
  }

  /** An account with nothing waiting starts again from the virtual time. */
  private forgetIfIdle(account: string) {
    if (!this.waiting.some((job) => job.account === account)) this.lastFinish.delete(account)
  }
}
