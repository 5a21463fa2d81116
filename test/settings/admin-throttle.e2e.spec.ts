import { ExecutionContext, UnauthorizedException } from '@nestjs/common';
import request from 'supertest';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { CapturingLogger } from '../support/capturing-logger';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { ADMIN_KEY, adminAuth, AdminApp, openAdminDatabase, startAdminApp } from './support';

const A = '/admin/invoice-payments';
const SLOWDOWN_MS = 300;

const failureLines = (logger: CapturingLogger) =>
  logger.lines.filter((l) => l.includes('admin authentication failed from'));

/** Wrong keys from one address (here loopback, as behind a reverse proxy), `n` at once. */
const wrongKeys = (url: string, n: number, from = 0) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      request(url)
        .get(`${A}/settings`)
        .set('Authorization', `Bearer guess-${from + i}-LEAKCHECK-0123456789`),
    ),
  );

/**
 * A brute force of the admin key from the owner's own address (a reverse proxy, a NAT): the right key is accepted
 * all along; the failures past the limit are answered 429, slowed, and logged a few times, never with a key.
 */
describeEachDatabase('admin key brute force', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox();
    app = await startAdminApp(db, sandbox, {
      logger,
      admin: { authThrottle: { maxFailures: 5, slowdownMs: SLOWDOWN_MS, maxHeld: 20 } },
    });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('the right key during a brute force of wrong keys is accepted; the wrong ones get 401, then 429 slowed', async () => {
    logger.lines.length = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      const [res] = await wrongKeys(app.url, 1, i);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.body.message).toMatch(/too many failed admin authentications: retry in \d+ s/);
        expect(Date.now() - started).toBeGreaterThanOrEqual(SLOWDOWN_MS - 20); // held before it went out
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);

    // The owner, from the same address, while the guesses go on around it.
    const flood = wrongKeys(app.url, 200, 100);
    const owner = await Promise.all(
      Array.from({ length: 10 }, () => request(app.url).get(`${A}/settings`).set(adminAuth)),
    );
    expect(owner.map((r) => r.status)).toEqual(Array(10).fill(200));
    const guesses = await flood;
    expect(new Set(guesses.map((r) => r.status))).toEqual(new Set([429]));
    expect((await request(app.url).get(`${A}/settings`).set(adminAuth)).status).toBe(200);

    // 208 failures: each of the first 5 logged, then the 50th (tenfold the limit); never a key.
    const lines = failureLines(logger);
    expect(lines).toHaveLength(6);
    expect(lines[4]).toMatch(
      /127\.0\.0\.1 \(admin key is not valid\): 5 of 5 allowed in 60 s; further failures/,
    );
    expect(lines[5]).toMatch(/: 50 of 5 allowed/);
    const text = logger.lines.join('\n');
    expect(text).not.toContain('LEAKCHECK');
    expect(text).not.toContain(ADMIN_KEY);
  });
});

/** With the host's own guard, the credentials it accepts are the right key: never refused by the throttle either. */
describeEachDatabase('host guard brute force', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;
  const hostGuard = {
    canActivate(context: ExecutionContext): boolean {
      const headers = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers;
      if (headers['x-staff-session'] === 'owner-session-0123456789') return true;
      throw new UnauthorizedException('no staff session');
    },
  };

  beforeAll(async () => {
    db = await openAdminDatabase(kind);
    sandbox = await startSandbox();
    app = await startAdminApp(db, sandbox, {
      admin: { guard: hostGuard, authThrottle: { maxFailures: 3, slowdownMs: 0 } },
    });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it("past the limit the host guard's refusals are 429, and what it accepts is still accepted", async () => {
    const wrong = () => request(app.url).get(`${A}/settings`).set('X-Staff-Session', 'guess');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await wrong()).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const owner = await request(app.url)
      .get(`${A}/settings`)
      .set('X-Staff-Session', 'owner-session-0123456789');
    expect(owner.status).toBe(200);
    expect((await wrong()).status).toBe(429);
  });
});
