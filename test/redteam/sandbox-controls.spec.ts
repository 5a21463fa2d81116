import http from 'node:http';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { call, createBody } from '../sandbox/helpers';

/**
 * Red team of the sandbox's controls (after issue 23): a malformed percent-encoding in a control path and an
 * unbounded wait were answered "the sandbox failed unexpectedly" (500). Each is now a 4xx naming what is wrong.
 */
describe("the sandbox's controls against malformed paths and unbounded waits", () => {
  let sandbox: SandboxServer;
  const errors: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ log: (line) => line.startsWith('error') && errors.push(line) });
  });
  afterAll(() => sandbox?.close());

  it('a malformed percent-encoding in an invoice or asset path: 400, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['GET', '/_sandbox/invoices/%'],
      ['GET', '/_sandbox/invoices/%E0%A4%A/page'],
      ['POST', '/_sandbox/invoices/%E0%A4%A/pay'],
      ['GET', '/_sandbox/qr/%E0%A4%A.png'],
      ['GET', '/_sandbox/billet/%ZZ.svg'],
    ];
    for (const [method, path] of cases) {
      const res = await call(sandbox.url, method, path, method === 'POST' ? {} : undefined);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body).toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/percent-encoding/),
      });
    }
    expect(errors).toEqual([]);
  });

  it('deliveries/wait: timeoutMs outside 0..60000 is a 422 naming it; a wait that times out is a 504', async () => {
    for (const timeoutMs of [-1, 1.5, 1e12, '100']) {
      const res = await call(sandbox.url, 'POST', '/_sandbox/deliveries/wait', { timeoutMs });
      expect([timeoutMs, res.status]).toEqual([timeoutMs, 422]);
      expect(Object.keys((res.body as { errors: object }).errors)).toEqual(['timeoutMs']);
    }
    // A delivery that cannot finish in time: a receiver that answers only when told to.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const receiver = http.createServer((req, res) => void held.then(() => res.end('ok')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    try {
      await call(sandbox.url, 'POST', '/_sandbox/webhooks', { url });
      const created = await call(sandbox.url, 'POST', '/invoices', createBody());
      expect(created.status).toBe(200);
      const res = await call(sandbox.url, 'POST', '/_sandbox/deliveries/wait', { timeoutMs: 50 });
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({
        code: 'timeout',
        message: expect.stringMatching(/still pending after 50 ms/),
      });
    } finally {
      release();
      await call(sandbox.url, 'POST', '/_sandbox/deliveries/wait', { timeoutMs: 5000 });
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
    expect(errors).toEqual([]);
  });
});
