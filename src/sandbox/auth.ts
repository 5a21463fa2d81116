import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ALL_SCOPES, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_TOKEN } from './constants';
import { forbidden, unauthorized } from './errors';
import type { Store } from './store';

/** Who is calling: the scopes of a valid bearer token. */
export interface Caller {
  scopes: string[];
  /** Epoch ms by the sandbox clock; null never expires. */
  expiresAt: number | null;
}

export interface AuthOptions {
  tokens?: Array<{ token: string; scopes: string[] }>;
  clients?: Array<{ clientId: string; clientSecret: string; scopes: string[] }>;
  issuedLifetimeSeconds: number;
  now: () => Date;
}

/**
 * Bearer tokens (§5) and the A5 credential exchange. Static tokens never expire; issued tokens live
 * `issuedLifetimeSeconds`. Error messages never repeat a token or a secret.
 */
export class Auth {
  private readonly statics: Map<string, string[]>;
  private readonly clients: Array<{ clientId: string; clientSecret: string; scopes: string[] }>;

  constructor(
    private readonly store: Store,
    private readonly options: AuthOptions,
  ) {
    const tokens = options.tokens ?? [{ token: DEFAULT_TOKEN, scopes: [...ALL_SCOPES] }];
    this.statics = new Map(tokens.map((t) => [t.token, [...t.scopes]]));
    this.clients = options.clients ?? [
      { clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET, scopes: [...ALL_SCOPES] },
    ];
  }

  /** The caller behind `Authorization: Bearer ...`; 401 when missing, unknown or expired. */
  authenticate(req: IncomingMessage): Caller {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('the Authorization header is missing');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized('the Authorization header must be "Bearer <access token>"');
    const token = m[1];
    const scopes = this.statics.get(token);
    if (scopes) return { scopes, expiresAt: null };
    const issued = this.store.issuedTokens.get(token);
    if (!issued) throw unauthorized('the access token is unknown');
    if (issued.expiresAt !== null && issued.expiresAt <= this.options.now().getTime()) {
      throw unauthorized('the access token has expired');
    }
    return { scopes: issued.scopes, expiresAt: issued.expiresAt };
  }

  /** Authenticates and checks one scope; 403 naming the scope when it is missing. */
  require(req: IncomingMessage, scope: string | null): Caller {
    const caller = this.authenticate(req);
    if (scope !== null && !caller.scopes.includes(scope)) throw forbidden(scope);
    return caller;
  }

  /** `GET /auth/token` with `Authorization: Basic base64(client_id:client_secret)` (A5). */
  exchange(req: IncomingMessage): { token: string; scopes: string[]; expiresIn: number } {
    const header = req.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!m) throw unauthorized('client credentials are required: "Basic base64(client_id:client_secret)"');
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = colon < 0 ? decoded : decoded.slice(0, colon);
    const secret = colon < 0 ? '' : decoded.slice(colon + 1);
    const client = this.clients.find((c) => c.clientId === id && sameText(c.clientSecret, secret));
    if (!client) throw unauthorized('the client credentials are invalid');
    const expiresIn = this.options.issuedLifetimeSeconds;
    return { token: this.issue(client.scopes, expiresIn), scopes: [...client.scopes], expiresIn };
  }

  /** Issues a random bearer token; `expiresInSeconds` undefined never expires. */
  issue(scopes: string[], expiresInSeconds?: number): string {
    const token = `sbx_${randomBytes(24).toString('hex')}`;
    const expiresAt =
      expiresInSeconds === undefined ? null : this.options.now().getTime() + expiresInSeconds * 1000;
    this.store.saveIssuedToken({ token, scopes: [...scopes], expiresAt });
    return token;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
