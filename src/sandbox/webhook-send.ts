import http from 'node:http';
import https from 'node:https';

/** What a receiver answered to one webhook request. */
export interface SendOutcome {
  status: number | null;
  error: string | null;
  /** Response header lines, `Name: value`. */
  headers: string[];
  body: string;
  durationMs: number;
}

/**
 * POSTs one webhook request. Array header values become separate header lines (node writes one line per
 * element), which is how the two `Webhook` headers of §6.3 go out. Never rejects: failures are outcomes.
 */
export function sendWebhook(
  url: string,
  headers: Record<string, string | string[]>,
  payload: string,
  timeoutMs: number,
): Promise<SendOutcome> {
  const started = performance.now();
  const done = (partial: Omit<SendOutcome, 'durationMs'>): SendOutcome => ({
    ...partial,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done({ status: null, error: 'invalid URL', headers: [], body: '' }));
    }
    const transport = target.protocol === 'https:' ? https : http;
    const req = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(payload)) },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 65536) chunks.push(chunk);
        });
        res.on('end', () => {
          const lines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          resolve(
            done({
              status: res.statusCode ?? null,
              error: null,
              headers: lines,
              body: Buffer.concat(chunks).toString(),
            }),
          );
        });
        res.on('error', (err) => resolve(done({ status: null, error: err.message, headers: [], body: '' })));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(done({ status: null, error: err.message, headers: [], body: '' })));
    req.end(payload);
  });
}
