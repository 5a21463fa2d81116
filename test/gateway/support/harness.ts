import type { LoggerService } from '@nestjs/common';
import type { Clock } from '../../../src/domain/clock';
import { GatewayClient } from '../../../src/gateway/gateway.client';
import type { GatewayClientOptions, GatewayConnectionSource } from '../../../src/gateway/gateway.options';
import { ALL_SCOPES, startSandbox } from '../../../src/sandbox';
import type { SandboxOptions, SandboxServer } from '../../../src/sandbox';
import { RecordingProxy } from './recording-proxy';

/** A distinctive bearer token: any trace of it in an error or a log line is a leak. */
export const TOKEN = 'tok_LEAKCHECK_7f3a9c2e5b1d';
/** A token that may only read invoices. */
export const READ_ONLY_TOKEN = 'tok_READONLY_4c8e1a0f';

/** Captures every log line (with its extra arguments) so tests can search them for secrets. */
export class CapturingLogger implements LoggerService {
  readonly lines: Array<{ level: string; text: string }> = [];
  onWarn?: (text: string) => void;
  private push(level: string, message: unknown, rest: unknown[]) {
    const text = [message, ...rest].map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
    this.lines.push({ level, text });
    return text;
  }
  log(message: unknown, ...rest: unknown[]) {
    this.push('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.push('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    const text = this.push('warn', message, rest);
    this.onWarn?.(text);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.push('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.push('verbose', message, rest);
  }
  all(): string {
    return this.lines.map((l) => `${l.level} ${l.text}`).join('\n');
  }
}

export interface Harness {
  sandbox: SandboxServer;
  proxy: RecordingProxy;
  logger: CapturingLogger;
  /** A client talking to the sandbox through the recording proxy, with short retry delays. */
  /** `connection`: the connection in force before every call, over the options' (as the module's settings are). */
  client(
    overrides?: Partial<GatewayClientOptions>,
    connection?: GatewayConnectionSource,
    clock?: Clock,
  ): GatewayClient;
  /** Forgets invoices, recorded requests, proxy rules, faults and log lines. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({
    port: 0,
    tokens: [
      { token: TOKEN, scopes: [...ALL_SCOPES] },
      { token: READ_ONLY_TOKEN, scopes: ['invoice.read'] },
    ],
    ...options,
  });
  const proxy = await RecordingProxy.start(sandbox.url);
  const logger = new CapturingLogger();
  return {
    sandbox,
    proxy,
    logger,
    client: (overrides = {}, connection, clock) =>
      new GatewayClient(
        {
          baseUrl: proxy.url,
          accessToken: TOKEN,
          mode: 'sandbox',
          logger,
          retry: { initialDelayMs: 5, maxDelayMs: 20 },
          ...overrides,
        },
        undefined,
        undefined,
        clock,
        connection,
      ),
    reset: async () => {
      await sandbox.controls.reset();
      proxy.reset();
      logger.lines.length = 0;
      logger.onWarn = undefined;
    },
    close: async () => {
      await proxy.close();
      await sandbox.close();
    },
  };
}
