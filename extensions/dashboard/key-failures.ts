// Wrong sign-in keys, counted per client address and in total over a sliding minute. Per address,
// so that one client guessing (or a script with a stale key) does not lock everyone else out; in
// total, so that many addresses guessing together are still slowed to a crawl. Behind a reverse
// proxy every client shares its address, which is the old single count: no weaker.

const WINDOW_MS = 60_000
/** Addresses remembered at most: past it the oldest are forgotten (the total still counts them). */
const ADDRESSES_KEPT = 4096

export class KeyFailures {
  private readonly byAddress = new Map<string, number[]>()
  private readonly all: number[] = []

  constructor(
    private readonly perAddress: number,
    private readonly total: number,
  ) {}

  /** Seconds until `address` may try again, 0 when it may now. */
  retryAfter(address: string, now = Date.now()): number {
    this.forget(now)
    const mine = this.byAddress.get(address) ?? []
    const blockedBy = mine.length >= this.perAddress ? mine[0]! : this.all.length >= this.total ? this.all[0]! : undefined
    return blockedBy === undefined ? 0 : Math.max(1, Math.ceil((blockedBy + WINDOW_MS - now) / 1000))
  }

  record(address: string, now = Date.now()): void {
    const mine = this.byAddress.get(address) ?? []
    this.byAddress.delete(address)
    this.byAddress.set(address, [...mine, now])
    this.all.push(now)
    if (this.byAddress.size > ADDRESSES_KEPT) this.byAddress.delete(this.byAddress.keys().next().value!)
  }

  private forget(now: number): void {
    while (this.all.length && this.all[0]! <= now - WINDOW_MS) this.all.shift()
    for (const [address, times] of this.byAddress) {
      while (times.length && times[0]! <= now - WINDOW_MS) times.shift()
      if (times.length === 0) this.byAddress.delete(address)
    }
  }
}
