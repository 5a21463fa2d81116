/**
 * Group commit: items submitted while a batch is in flight go together when it returns; a quiet moment's first goes
 * at once. `run` returns one result per item in order (an `Error` rejects that item alone); a throw rejects the batch.
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
