import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../examples/demo-store/config';
import { trackingCode } from '../../examples/demo-store/stories';
import { Timeline } from '../../examples/demo-store/timeline';

describe('demo store command line', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'demo-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to port 9000, SQLite under the data folder, the in-process sandbox, and serving', () => {
    const config = loadConfig([], { DEMO_DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      once: false,
      database: { type: 'better-sqlite3', database: join(dir, 'demo-store.sqlite') },
      gateway: undefined,
      sandboxPort: 0,
    });
  });

  it('reads --once and --port, and PostgreSQL and another service from the environment', () => {
    const env = {
      DEMO_DATA_DIR: dir,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/shop',
      GATEWAY_BASE_URL: 'http://127.0.0.1:4010',
      GATEWAY_ACCESS_TOKEN: 'sandbox-token',
      PORT: '8080',
    };
    expect(loadConfig(['--once', '--port', '9100'], env)).toMatchObject({
      once: true,
      port: 9100,
      database: { type: 'postgres', url: env.DATABASE_URL },
      gateway: { baseUrl: env.GATEWAY_BASE_URL, accessToken: 'sandbox-token' },
    });
    expect(loadConfig(['--port=0'], env)).toMatchObject({ port: 0, once: false });
    expect(loadConfig([], env)).toMatchObject({ port: 8080 });
    expect(loadConfig(['--help'], env)).toBe('help');
  });

  it('refuses what it cannot run with, naming the argument', () => {
    expect(() => loadConfig(['--onse'], { DEMO_DATA_DIR: dir })).toThrow(
      new ConfigError('unknown argument "--onse"'),
    );
    expect(() => loadConfig(['--port', 'abc'], { DEMO_DATA_DIR: dir })).toThrow(
      /--port must be a port number/,
    );
    expect(() => loadConfig(['--port'], { DEMO_DATA_DIR: dir })).toThrow(/--port must be a port number/);
    expect(() => loadConfig([], { DEMO_DATA_DIR: dir, PORT: '70000' })).toThrow(/PORT must be a port number/);
    expect(() => loadConfig([], { DEMO_DATA_DIR: dir, GATEWAY_BASE_URL: 'http://x' })).toThrow(
      /GATEWAY_ACCESS_TOKEN is required/,
    );
  });

  it('creates the admin and encryption keys once, private to the user, and reads the same ones again', () => {
    const first = loadConfig([], { DEMO_DATA_DIR: dir });
    const second = loadConfig([], { DEMO_DATA_DIR: dir });
    if (first === 'help' || second === 'help') throw new Error('unexpected help');
    expect(first.adminKey.length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(first.encryptionKey, 'base64')).toHaveLength(32);
    expect(second).toMatchObject({ adminKey: first.adminKey, encryptionKey: first.encryptionKey });
    expect(readFileSync(join(dir, 'admin-key'), 'utf8').trim()).toBe(first.adminKey);
    expect(statSync(join(dir, 'admin-key')).mode & 0o777).toBe(0o600);
    expect(loadConfig([], { DEMO_DATA_DIR: dir, ADMIN_KEY: 'from-the-environment-key' })).toMatchObject({
      adminKey: 'from-the-environment-key',
    });
  });
});

describe('demo store tracking codes', () => {
  it('carry the UPU S10 check digit', () => {
    // Check digits computed by hand: weights 8 6 4 2 3 5 9 7, 11 − (sum mod 11), 10 → 0, 11 → 5.
    expect(trackingCode(47312482)).toBe('QB473124829BR');
    expect(trackingCode(12345678)).toBe('QB123456785BR');
    expect(trackingCode(0)).toBe('QB000000005BR');
    expect(trackingCode(5)).toBe('QB000000059BR');
    expect(trackingCode(8)).toBe('QB000000080BR');
  });
});

describe('demo store timeline', () => {
  it('stamps steps with the elapsed time and indents details, without colour when asked', () => {
    const lines: string[] = [];
    let now = 1000;
    const t = new Timeline({ write: (l) => lines.push(l), color: false, now: () => now });
    t.section('PIX order');
    now = 2500;
    t.step('placed');
    t.detail('Total', 'R$ 10,00');
    t.ok('paid');
    t.fail('shipped');
    t.block('▄▄\n██\n');
    expect(lines).toEqual([
      '',
      expect.stringMatching(/^━━ PIX order ━+$/),
      '   +1.50s  ▸ placed',
      '            Total: R$ 10,00',
      '   +1.50s  ✔ paid',
      '   +1.50s  ✖ shipped',
      '            ▄▄',
      '            ██',
    ]);
  });
});
