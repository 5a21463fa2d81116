import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP hop in front of the sandbox that counts the requests it passes, by method and path. */
export interface CountingProxy {
  url: string;
  /** Requests passed whose `METHOD path` (no query) matches. */
  count(match: (method: string, path: string) => boolean): number;
  /** Every request passed so far, as `METHOD path` (no query), oldest first: a failure can name the calls. */
  requests(): string[];
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const seen: Array<{ method: string; path: string }> = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      seen.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0] });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>;
      try {
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
        res
          .writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
          })
          .end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    count: (match) => seen.filter((s) => match(s.method, s.path)).length,
    requests: () => seen.map((s) => `${s.method} ${s.path}`),
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
