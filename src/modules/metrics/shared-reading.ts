/**
 * A value read at most once per `maxAgeMs`, and once for any number of callers at the same time: a
 * scrape of `/metrics` (public, answered before anyone is known) must not cost the database a scan
 * per request, however often it is asked. A read in progress is shared however long it takes (a
 * slow count never has a second one started beside it); its value is kept for `maxAgeMs` from when
 * it arrived. A failed read is not kept: the next caller reads again.
 */
export class SharedReading<T> {
  private pending: Promise<T> | undefined;
  private kept: { value: Promise<T>; at: number } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): Promise<T> {
    if (this.pending) return this.pending;
    if (this.kept && this.now() - this.kept.at < this.maxAgeMs) return this.kept.value;
    const reading = this.read();
    this.pending = reading;
    reading.then(
      () => {
        this.kept = { value: reading, at: this.now() };
        this.pending = undefined;
      },
      () => {
        this.pending = undefined;
      },
    );
    return reading;
  }
}
