import { Coalescer } from './poller';

/** A `run` whose batches the test releases by hand. */
function manual() {
  const batches: Array<{ items: number[]; finish: (out: Array<string | Error> | Error) => void }> = [];
  const run = (items: number[]) =>
    new Promise<Array<string | Error>>((resolve, reject) =>
      batches.push({ items, finish: (out) => (out instanceof Error ? reject(out) : resolve(out)) }),
    );
  return { batches, run };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Coalescer', () => {
  it('sends the first item alone at once, and what arrives meanwhile together when it returns', async () => {
    const { batches, run } = manual();
    const c = new Coalescer(run, 10);
    const first = c.submit(1);
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    const rest = [2, 3, 4].map((n) => c.submit(n));
    expect(batches).toHaveLength(1);
    batches[0].finish(['one']);
    await expect(first).resolves.toBe('one');
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    batches[1].finish(['two', 'three', 'four']);
    await expect(Promise.all(rest)).resolves.toEqual(['two', 'three', 'four']);
  });

  it('caps a batch at maxBatch, keeping the order', async () => {
    const { batches, run } = manual();
    const c = new Coalescer(run, 2);
    const all = [1, 2, 3, 4, 5].map((n) => c.submit(n));
    batches[0].finish(['1']);
    await tick();
    batches[1].finish(['2', '3']);
    await tick();
    batches[2].finish(['4', '5']);
    await expect(Promise.all(all)).resolves.toEqual(['1', '2', '3', '4', '5']);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('rejects only the item whose result is an Error, and every item of a batch that throws', async () => {
    const { batches, run } = manual();
    const c = new Coalescer(run, 10);
    const first = c.submit(1);
    const [a, b] = [c.submit(2), c.submit(3)];
    batches[0].finish(new Error('down'));
    await expect(first).rejects.toThrow('down');
    await tick();
    batches[1].finish(['ok', new Error('refused')]);
    await expect(a).resolves.toBe('ok');
    await expect(b).rejects.toThrow('refused');
    // It goes on after failures.
    const later = c.submit(4);
    await tick();
    batches[2].finish(['fine']);
    await expect(later).resolves.toBe('fine');
  });

  it('rejects the batch of a run that throws before returning a promise, and goes on', async () => {
    let calls = 0;
    const c = new Coalescer<number, string>((items) => {
      calls++;
      if (calls === 1) throw new Error('thrown at once');
      return Promise.resolve(items.map(String));
    }, 10);
    await expect(c.submit(1)).rejects.toThrow('thrown at once');
    await expect(c.submit(2)).resolves.toBe('2');
  });

  it('rejects a batch whose run returns the wrong number of results', async () => {
    const { batches, run } = manual();
    const c = new Coalescer(run, 10);
    const one = c.submit(1);
    batches[0].finish([]);
    await expect(one).rejects.toThrow('one result per item');
  });
});
