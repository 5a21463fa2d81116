/**
 * Health bench (`npm run bench -- health`): the module's `/health` (every option at its default, in a forked host,
 * `bench/health-host.ts`) while its service hangs, a switch on loopback that accepts and never answers
 * (`test/observability/service-switch.ts`). Prints how fast `/health` answers while the service answers and while
 * it hangs (p50, p99, max of sequential GETs, one every 10 ms), and how long after the hang began it turned 503.
 * The targets: every answer within 50 ms whatever the service does; 503 within 45 s (30 s documented).
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox';
import { startServiceSwitch } from '../test/observability/service-switch';
import { ms, percentiles } from './stats';

const TOKEN = 'bench-health-token';
const PACE_MS = 10;
/** Sampling goes on this long after the first 503 (answers of a module that knows the service hangs). */
const AFTER_DOWN_MS = 5_000;
const GIVE_UP_MS = 90_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

type Answer = { status: number; ms: number; lastCall?: string };

function get(url: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const elapsed = performance.now() - started;
          const body = JSON.parse(Buffer.concat(chunks).toString()) as {
            details?: { invoice_payments?: { service?: { lastCall?: string } } };
          };
          resolve({
            status: res.statusCode!,
            ms: elapsed,
            lastCall: body.details?.invoice_payments?.service?.lastCall,
          });
        });
      })
      .on('error', reject);
  });
}

const pause = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

function summary(label: string, answers: Answer[]): string {
  const p = percentiles(answers.map((a) => a.ms));
  const max = Math.max(...answers.map((a) => a.ms));
  return `${label.padEnd(36)} n ${String(p.n).padStart(5)}  p50 ${ms(p.p50)}  p99 ${ms(p.p99)}  max ${ms(max)}`;
}

export async function runHealthBench(): Promise<void> {
  console.log('\n== health: /health while the service hangs (default settings) ==');
  const sandbox = await startSandbox({ port: 0, tokens: [{ token: TOKEN, scopes: ['invoice.read'] }] });
  const service = await startServiceSwitch(sandbox.url);
  const host = fork(join(__dirname, 'health-host.ts'), [], {
    execArgv: ['-r', join(__dirname, 'transpile.js')],
    env: { ...process.env, BENCH_HEALTH_SERVICE_URL: service.url, BENCH_HEALTH_TOKEN: TOKEN },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { url } = await new Promise<{ url: string }>((resolve, reject) => {
      host.once('message', (msg: { url: string }) => resolve(msg));
      host.once('exit', (code) => reject(new Error(`health host exited (${code})`)));
    });
    const health = () => get(`${url}/health`);
    // Up once the first check's probe has answered (the service's latest word is `ok`, this instant).
    const until = performance.now() + 30_000;
    while ((await health()).lastCall !== 'ok') {
      if (performance.now() > until) throw new Error('/health never reported the service answering');
      await pause(PACE_MS);
    }
    // The service's last answer before the hang: that probe's (no call of the module's own in this bench).
    const lastAnswerAt = performance.now();
    const answering: Answer[] = [];
    for (let i = 0; i < 500; i++) {
      answering.push(await health());
      await pause(PACE_MS);
    }

    service.hang();
    const hungAt = performance.now();
    const hanging: Answer[] = [];
    let downAt: number | null = null;
    for (;;) {
      const answer = await health();
      hanging.push(answer);
      const now = performance.now();
      if (answer.status === 503 && downAt === null) downAt = now;
      if (downAt !== null && now - downAt > AFTER_DOWN_MS) break;
      if (now - hungAt > GIVE_UP_MS) break;
      await pause(PACE_MS);
    }
    const before = downAt === null ? hanging : hanging.filter((a) => a.status === 200);
    console.log(summary('/health, service answering', answering));
    console.log(summary('/health, hanging, until 503', before));
    console.log(summary('/health, hanging, all (200 and 503)', hanging));
    console.log(
      downAt === null
        ? `/health never turned 503 within ${GIVE_UP_MS / 1000} s of the hang`
        : `/health turned 503 ${((downAt - hungAt) / 1000).toFixed(1)} s after the hang began, ` +
            `${((downAt - lastAnswerAt) / 1000).toFixed(1)} s after the service's last answer ` +
            `(lastCall ${hanging.find((a) => a.status === 503)?.lastCall}); requests the hang held: ` +
            `${service.held().length}`,
    );
  } finally {
    host.send('close');
    await new Promise((resolve) => (host.exitCode === null ? host.once('exit', resolve) : resolve(null)));
    await service.close();
    await sandbox.close();
  }
}
