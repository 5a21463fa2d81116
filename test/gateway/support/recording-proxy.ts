import http, { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached the wire. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Body text ('' when none) and its JSON reading (undefined when not JSON). */
  body: string;
  json: unknown;
}

/**
 * What to do to matching requests after the sandbox has handled them: hold the answer (the client times out),
 * drop the connection (the client sees it reset), or rewrite the answer.
 */
export interface ProxyRule {
  match: (req: RecordedRequest) => boolean;
  action:
    | { kind: 'hold' }
    | { kind: 'drop' }
    | { kind: 'rewrite'; answer: (status: number, body: string) => { status: number; body: string } };
  /** Apply this many times (default: every time). */
  times?: number;
}

/**
 * A loopback HTTP proxy in front of the sandbox that records every request the client sends (method, path,
 * headers, body): the tests' witness of "what went over the wire" and of "nothing was sent". Rules add the
 * failures the sandbox cannot stage itself (a failure after the request was handled).
 */
export class RecordingProxy {
  readonly requests: RecordedRequest[] = [];
  private rules: ProxyRule[] = [];
  private server: http.Server;
  /** Resolves when every request forwarded so far has been answered by the sandbox. */
  private pending = new Set<Promise<void>>();
  port = 0;

  private constructor(private readonly target: string) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(target: string, port = 0): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(target);
    await proxy.listen(port);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  addRule(rule: ProxyRule): void {
    this.rules.push(rule);
  }

  /** Forgets recorded requests, rules and what is pending (a sandbox reset leaves delayed requests unanswered). */
  reset(): void {
    this.requests.length = 0;
    this.rules = [];
    this.pending.clear();
  }

  /** Requests other than the sandbox's own controls. */
  apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => !r.path.startsWith('/_sandbox'));
  }

  /** Waits until the sandbox has answered every request forwarded so far. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        json,
      };
      this.requests.push(recorded);
      const rule = this.takeRule(recorded);
      const done = this.forward(req, body, res, rule).catch(() => undefined);
      this.pending.add(done);
      void done.finally(() => this.pending.delete(done));
    });
  }

  private takeRule(req: RecordedRequest): ProxyRule | undefined {
    const rule = this.rules.find((r) => r.match(req));
    if (rule && rule.times !== undefined && --rule.times <= 0)
      this.rules = this.rules.filter((r) => r !== rule);
    return rule;
  }

  private forward(
    req: http.IncomingMessage,
    body: string,
    res: http.ServerResponse,
    rule?: ProxyRule,
  ): Promise<void> {
    return new Promise((resolve) => {
      const upstream = http.request(
        `${this.target}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: new URL(this.target).host } },
        (up) => {
          const parts: Buffer[] = [];
          up.on('data', (c: Buffer) => parts.push(c));
          up.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            resolve();
            if (rule?.action.kind === 'hold') return; // never answer: the client gives up
            if (rule?.action.kind === 'drop') return void req.socket.destroy();
            let status = up.statusCode ?? 502;
            let out = text;
            if (rule?.action.kind === 'rewrite') ({ status, body: out } = rule.action.answer(status, text));
            const headers = { ...up.headers };
            delete headers['content-length'];
            delete headers['transfer-encoding'];
            res.writeHead(status, headers);
            res.end(out);
          });
        },
      );
      upstream.on('error', () => {
        resolve();
        req.socket.destroy();
      });
      upstream.end(body);
    });
  }
}
