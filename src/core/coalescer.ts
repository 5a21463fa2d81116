/**
 * Group commit for one kind of write: items submitted while the previous batch is in flight wait, and go together
 * in one batch when it returns. The first item of a quiet moment goes at once, alone, so an idle store pays no
 * added latency; a busy one pays one round trip (and one commit) per batch instead of one per item.
 *
 * `run` gets the items in submission order and returns one result per item, in the same order; a result that is
 * an `Error` rejects that item's promise alone. A `run` that throws rejects every item of its batch. Whether an
 * item's write happened is then unknown to the coalescer: `run` decides, and callers treat a rejection as they
 * would the failure of their own single statement.
 */
export class Coalescer<I, O> {
  private waiting: Array<{ item: I; resolve: (out: O) => void; reject: (err: unknown) => void }> = [];
  private running = false;

  constructor(
    private readonly run: (items: I[]) => Promise<Array<O | Error>>,
    private readonly maxBatch: number,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, this.maxBatch);
    // Through a promise, so a `run` that throws before returning one rejects its batch instead of wedging the queue.
    void new Promise<Array<O | Error>>((resolve) => resolve(this.run(batch.map((w) => w.item))))
      .then(
        (results) =>
          batch.forEach((w, i) => {
            const result = results[i];
            if (result instanceof Error) w.reject(result);
            else if (results.length !== batch.length) w.reject(new Error('coalescer: one result per item'));
            else w.resolve(result);
          }),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.running = false;
        this.pump();
      });
  }
}
