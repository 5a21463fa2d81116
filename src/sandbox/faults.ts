import { SandboxError } from './errors';
import { isObject, type JsonObject } from './http';
import type { ActiveFault, FaultRule } from './types';
import { FieldCheck } from './validation';

/** What the server must do to one request because of the active faults. */
export interface FaultPlan {
  latencyMs: number;
  action: 'none' | 'fail' | 'hang' | 'drop';
  /** For `fail`: the error to answer. */
  error?: SandboxError;
  /**
   * Handle the request first (the write is carried out), then answer the error (`fail`), never answer (`hang`:
   * the client times out) or drop the connection (`drop`): the "lost answer" cases of a write.
   */
  afterProcessing?: boolean;
}

interface StoredFault extends ActiveFault {
  random: () => number;
  hits: number[];
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'state_conflict',
  422: 'validation_error',
  429: 'rate_limited',
};

/**
 * HTTP fault injection. Rules apply in the order added; latency adds up, and the first rule that fails,
 * hangs or drops decides. Deterministic by design: `times` counts requests, `errorRate` draws from a seeded
 * generator. The server never consults this for `/_sandbox`.
 */
export class Faults {
  private rules: StoredFault[] = [];
  private nextId = 1;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Adds a rule after validating it (422 naming the field). */
  add(input: FaultRule | JsonObject): ActiveFault {
    const rule = parseRule(input as JsonObject);
    const stored: StoredFault = {
      ...rule,
      id: `flt_${this.nextId++}`,
      remaining: rule.times ?? null,
      random: mulberry32(rule.seed ?? 1),
      hits: [],
    };
    this.rules.push(stored);
    return publicView(stored);
  }

  clear(): void {
    this.rules = [];
  }

  list(): ActiveFault[] {
    return this.rules.map(publicView);
  }

  /** Decides the fate of one request (and counts it against the matching rules). */
  plan(method: string, path: string): FaultPlan {
    const plan: FaultPlan = { latencyMs: 0, action: 'none' };
    for (const rule of [...this.rules]) {
      if (!matches(rule, method, path)) continue;
      if (rule.rateLimit) {
        const now = this.nowMs();
        rule.hits = rule.hits.filter((t) => t > now - rule.rateLimit!.windowMs);
        if (rule.hits.length >= rule.rateLimit.limit) {
          const retryAfter = Math.max(1, Math.ceil((rule.hits[0] + rule.rateLimit.windowMs - now) / 1000));
          return { ...plan, action: 'fail', error: injected(429, retryAfter) };
        }
        rule.hits.push(now);
        continue;
      }
      if (rule.errorRate !== undefined && rule.random() >= rule.errorRate) continue;
      if (rule.remaining !== null && --rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      plan.latencyMs += rule.latencyMs ?? 0;
      const after = !!rule.afterProcessing;
      if (rule.hang) return { ...plan, action: 'hang', afterProcessing: after };
      if (rule.dropConnection) return { ...plan, action: 'drop', afterProcessing: after };
      if (rule.status !== undefined) {
        const error = injected(rule.status, rule.retryAfterSeconds ?? 1);
        return { ...plan, action: 'fail', error, afterProcessing: !!rule.afterProcessing };
      }
    }
    return plan;
  }
}

function injected(status: number, retryAfterSeconds: number): SandboxError {
  const code = CODES[status] ?? (status >= 500 ? 'unavailable' : 'bad_request');
  const headers: Record<string, string> = status === 429 ? { 'Retry-After': String(retryAfterSeconds) } : {};
  const message = status === 429 ? 'too many requests' : `injected fault: status ${status}`;
  return new SandboxError(status, code, message, {}, headers);
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) return false;
  if (!rule.path) return true;
  return rule.path.endsWith('*') ? path.startsWith(rule.path.slice(0, -1)) : path === rule.path;
}

function parseRule(body: JsonObject): FaultRule {
  const c = new FieldCheck();
  const rule: FaultRule = {
    method: c.string(body, 'method', 'method', { max: 16 }) ?? undefined,
    path: c.string(body, 'path', 'path', { max: 512 }) ?? undefined,
    times: c.integer(body, 'times', 'times', { min: 1 }) ?? undefined,
    latencyMs: c.integer(body, 'latencyMs', 'latencyMs', { min: 0, max: 600000 }) ?? undefined,
    status: c.integer(body, 'status', 'status', { min: 400, max: 599 }) ?? undefined,
    seed: c.integer(body, 'seed', 'seed') ?? undefined,
    retryAfterSeconds: c.integer(body, 'retryAfterSeconds', 'retryAfterSeconds', { min: 0 }) ?? undefined,
  };
  if (rule.path !== undefined && !rule.path.startsWith('/')) c.fail('path', 'must start with /');
  for (const flag of ['afterProcessing', 'hang', 'dropConnection'] as const) {
    const v = body[flag];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') c.fail(flag, 'must be a boolean');
    else rule[flag] = v;
  }
  const rate = body.errorRate;
  if (rate !== undefined) {
    if (typeof rate !== 'number' || rate < 0 || rate > 1) c.fail('errorRate', 'must be a number from 0 to 1');
    else if (rule.status === undefined) c.fail('errorRate', 'needs status');
    else rule.errorRate = rate;
  }
  if (rule.afterProcessing && rule.status === undefined && !rule.hang && !rule.dropConnection) {
    c.fail('afterProcessing', 'needs status, hang or dropConnection');
  }
  if (body.rateLimit !== undefined) {
    if (!isObject(body.rateLimit)) c.fail('rateLimit', 'must be an object');
    else {
      const limit = c.integer(body.rateLimit, 'limit', 'rateLimit.limit', { required: true, min: 0 });
      const windowMs = c.integer(body.rateLimit, 'windowMs', 'rateLimit.windowMs', {
        required: true,
        min: 1,
      });
      if (typeof limit === 'number' && typeof windowMs === 'number') rule.rateLimit = { limit, windowMs };
    }
  }
  const effects = [rule.latencyMs, rule.status, rule.hang, rule.dropConnection, rule.rateLimit];
  if (effects.every((e) => e === undefined || e === false)) {
    c.fail('body', 'needs one of latencyMs, status, hang, dropConnection, rateLimit');
  }
  c.done();
  return Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined)) as FaultRule;
}

function publicView(f: StoredFault): ActiveFault {
  const { random: _r, hits: _h, ...rest } = f;
  return rest;
}

/** A small seeded generator: the same seed gives the same sequence. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
