import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKeyOptions } from '../options/admin.options';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A key or stored secret that cannot be used; messages name the key id and field, never key or secret. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/** Environment variable holding the keys: JSON `{"k1":"<key>"}` or `k1:<key>,k2:<key>`. */
export const ENCRYPTION_KEYS_ENV = 'INVOICE_PAYMENTS_ENCRYPTION_KEYS';
/** Environment variable naming the key new values are encrypted with. */
export const ENCRYPTION_KEY_ID_ENV = 'INVOICE_PAYMENTS_ENCRYPTION_KEY_ID';

/**
 * AES-256-GCM, stored as `v1:<keyId>:<iv>:<tag>:<ciphertext>` so rotation can tell old rows. The context is bound as
 * additional authenticated data: a value copied into another column or row fails to decrypt.
 */
export class SecretBox {
  private constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    readonly currentKeyId: string | null,
  ) {}

  /** From the options, else the environment; with neither, the box can neither read nor write values. */
  static create(options?: EncryptionKeyOptions, env: NodeJS.ProcessEnv = process.env): SecretBox {
    const source = options ?? fromEnv(env);
    if (!source) return new SecretBox(new Map(), null);
    if (typeof source.keys !== 'object' || source.keys === null || Array.isArray(source.keys)) {
      throw new SecretBoxError(
        'admin.encryption.keys must be an object of key id to key, e.g. { k1: process.env.PAYMENTS_KEY_K1 }',
      );
    }
    const keys = new Map<string, Buffer>();
    for (const [id, raw] of Object.entries(source.keys)) {
      if (!KEY_ID.test(id)) {
        throw new SecretBoxError(`encryption key id "${id}" must be 1-32 characters of A-Z a-z 0-9 _ -`);
      }
      keys.set(id, parseKey(id, raw));
    }
    const ids = [...keys.keys()];
    const current = source.currentKeyId ?? (ids.length === 1 ? ids[0] : undefined);
    if (ids.length === 0) throw new SecretBoxError('encryption keys are configured but empty');
    if (current === undefined) {
      throw new SecretBoxError(
        `encryption currentKeyId is required when several keys are given (${ids.join(', ')})`,
      );
    }
    if (!keys.has(current)) {
      throw new SecretBoxError(
        `encryption currentKeyId "${current}" is not among the keys (${ids.join(', ')})`,
      );
    }
    return new SecretBox(keys, current);
  }

  get canEncrypt(): boolean {
    return this.currentKeyId !== null;
  }

  encrypt(plain: string, context = ''): string {
    const key = this.currentKeyId === null ? undefined : this.keys.get(this.currentKeyId);
    if (!key) {
      throw new SecretBoxError(
        `no encryption key is configured: set admin.encryption in the module options or ${ENCRYPTION_KEYS_ENV}`,
      );
    }
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return [VERSION, this.currentKeyId, ...parts].join(':');
  }

  decrypt(envelope: string, context = ''): string {
    const { keyId, iv, tag, body } = parseEnvelope(envelope);
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`value was encrypted with key "${keyId}", which is not configured`);
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        `value encrypted with key "${keyId}" failed authentication (wrong key or tampered)`,
      );
    }
  }

  static keyIdOf(envelope: string): string {
    return parseEnvelope(envelope).keyId;
  }

  needsRotation(envelope: string): boolean {
    return this.currentKeyId !== null && SecretBox.keyIdOf(envelope) !== this.currentKeyId;
  }
}

/** A value that is not a key string fails in `parseKey`, naming its id. */
function fromEnv(env: NodeJS.ProcessEnv): EncryptionKeyOptions | undefined {
  const raw = env[ENCRYPTION_KEYS_ENV]?.trim();
  if (!raw) return undefined;
  const currentKeyId = env[ENCRYPTION_KEY_ID_ENV]?.trim() || undefined;
  if (raw.startsWith('{')) {
    try {
      return { keys: JSON.parse(raw) as Record<string, string>, currentKeyId };
    } catch {
      throw new SecretBoxError(`${ENCRYPTION_KEYS_ENV} is not valid JSON`);
    }
  }
  const pairs = raw.split(',').map((pair) => pair.split(/:(.*)/s, 2).map((part) => part.trim()));
  if (pairs.some(([id, key]) => !id || key === undefined)) {
    throw new SecretBoxError(`${ENCRYPTION_KEYS_ENV} entries must read <keyId>:<key>`);
  }
  return { keys: Object.fromEntries(pairs) as Record<string, string>, currentKeyId };
}

function parseKey(id: string, raw: string | Buffer | undefined | null): Buffer {
  if (raw === undefined || raw === null || raw === '') {
    throw new SecretBoxError(
      `encryption key "${id}" is missing (${raw === '' ? 'empty' : String(raw)}): give 32 random bytes as base64 ` +
        `or hex (openssl rand -base64 32); if it comes from an environment variable, is that variable set?`,
    );
  }
  const text = typeof raw === 'string' ? raw.trim() : '';
  // Node's base64 reads the URL-safe alphabet too.
  const encoding = /^[0-9a-fA-F]{64}$/.test(text)
    ? 'hex'
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? 'base64'
      : null;
  const key = Buffer.isBuffer(raw) ? Buffer.from(raw) : encoding && Buffer.from(text, encoding);
  if (key?.length === KEY_BYTES) return key;
  throw new SecretBoxError(`encryption key "${id}" must be 32 bytes written as base64 or hex`);
}

function parseEnvelope(envelope: string): { keyId: string; iv: Buffer; tag: Buffer; body: Buffer } {
  const parts = typeof envelope === 'string' ? envelope.split(':') : [];
  if (parts.length !== 5 || parts[0] !== VERSION || !KEY_ID.test(parts[1])) {
    throw new SecretBoxError(
      'stored value is not an encrypted secret (expected v1:<keyId>:<iv>:<tag>:<data>)',
    );
  }
  const [, keyId, ...rest] = parts;
  const [iv, tag, body] = rest.map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretBoxError(`stored value encrypted with key "${keyId}" is malformed`);
  }
  return { keyId, iv, tag, body };
}
