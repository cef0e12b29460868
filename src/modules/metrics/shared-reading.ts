/**
 * A value read at most once per `maxAgeMs`, and once for any number of callers at the same time: a
 * scrape of `/metrics` (public, answered before anyone is known) must not cost the database a scan
 * per request, however often it is asked. A failed read is not kept: the next caller reads again.
 */
export class SharedReading<T> {
  private reading: Promise<T> | undefined;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): Promise<T> {
    if (this.reading && this.now() - this.readAt < this.maxAgeMs) return this.reading;
    const started = this.now();
    const reading = this.read();
    this.reading = reading;
    this.readAt = started;
    reading.catch(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    return reading;
  }
}
