import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { ENCRYPTION_KEY_ID_ENV, ENCRYPTION_KEYS_ENV, SecretBox, SecretBoxError } from './secret-box';

const k1 = randomBytes(32);
const k2 = randomBytes(32);

describe('SecretBox', () => {
  it('round-trips any text and never writes the plain text', () => {
    const box = SecretBox.create({ keys: { k1: k1.toString('base64') } });
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.string({ maxLength: 40 }),
        (plain, context) => {
          const sealed = box.encrypt(plain, context);
          expect(sealed.startsWith('v1:k1:')).toBe(true);
          if (plain.length >= 12) expect(sealed).not.toContain(plain);
          expect(box.decrypt(sealed, context)).toBe(plain);
        },
      ),
    );
  });

  it('uses a fresh IV each time, so equal secrets give different values', () => {
    const box = SecretBox.create({ keys: { k1 } });
    const a = box.encrypt('same-token');
    const b = box.encrypt('same-token');
    expect(a).not.toBe(b);
    expect(a.split(':')[2]).not.toBe(b.split(':')[2]);
  });

  it('refuses a value decrypted under another context (moved to another column or row)', () => {
    const box = SecretBox.create({ keys: { k1 } });
    const sealed = box.encrypt('tok_abcdef123456', 'settings:default:accessToken');
    expect(() => box.decrypt(sealed, 'settings:default:webhookToken')).toThrow(/failed authentication/);
  });

  it('refuses a tampered value', () => {
    const box = SecretBox.create({ keys: { k1 } });
    const parts = box.encrypt('tok_abcdef123456').split(':');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => box.decrypt(parts.join(':'))).toThrow(SecretBoxError);
  });

  it('decrypts with any known key and encrypts with the current one (rotation)', () => {
    const old = SecretBox.create({ keys: { k1 } });
    const sealed = old.encrypt('tok_rotate_me_please');
    const rotated = SecretBox.create({ keys: { k1, k2: k2.toString('hex') }, currentKeyId: 'k2' });
    expect(rotated.decrypt(sealed)).toBe('tok_rotate_me_please');
    expect(rotated.needsRotation(sealed)).toBe(true);
    const resealed = rotated.encrypt('tok_rotate_me_please');
    expect(SecretBox.keyIdOf(resealed)).toBe('k2');
    expect(rotated.needsRotation(resealed)).toBe(false);
  });

  it('names the missing key id when a value uses a key that is not configured', () => {
    const sealed = SecretBox.create({ keys: { k1 } }).encrypt('tok_abcdef123456');
    const other = SecretBox.create({ keys: { k2 } });
    expect(() => other.decrypt(sealed)).toThrow('value was encrypted with key "k1", which is not configured');
  });

  it('reads keys from the environment, as JSON or as id:key pairs', () => {
    const json = SecretBox.create(undefined, {
      [ENCRYPTION_KEYS_ENV]: JSON.stringify({ a: k1.toString('base64'), b: k2.toString('hex') }),
      [ENCRYPTION_KEY_ID_ENV]: 'b',
    });
    expect(json.currentKeyId).toBe('b');
    expect(SecretBox.keyIdOf(json.encrypt('tok_sealed_with_b_1'))).toBe('b');
    const pairs = SecretBox.create(undefined, { [ENCRYPTION_KEYS_ENV]: `a:${k1.toString('base64url')}` });
    expect(pairs.currentKeyId).toBe('a');
    // The same key written as base64 (JSON form) and base64url (pair form) is the same key.
    const fromA = SecretBox.create({ keys: { a: k1 } }).encrypt('tok_from_key_a_123');
    expect(pairs.decrypt(fromA)).toBe('tok_from_key_a_123');
    expect(json.decrypt(fromA)).toBe('tok_from_key_a_123');
  });

  it('without any key, refuses to encrypt and says how to configure one', () => {
    const box = SecretBox.create(undefined, {});
    expect(box.canEncrypt).toBe(false);
    expect(() => box.encrypt('tok_abcdef123456')).toThrow(
      /no encryption key is configured.*INVOICE_PAYMENTS_ENCRYPTION_KEYS/,
    );
  });

  it('rejects malformed key options with a message naming the key, never its value', () => {
    const shortKey = randomBytes(16).toString('base64');
    expect(() => SecretBox.create({ keys: { k1: shortKey } })).toThrow(
      'encryption key "k1" must be 32 bytes',
    );
    try {
      SecretBox.create({ keys: { k1: shortKey } });
    } catch (err) {
      expect((err as Error).message).not.toContain(shortKey);
    }
    expect(() => SecretBox.create({ keys: { 'bad:id': k1 } })).toThrow(/key id "bad:id"/);
    expect(() => SecretBox.create({ keys: { k1, k2 } })).toThrow(/currentKeyId is required/);
    expect(() => SecretBox.create({ keys: { k1 }, currentKeyId: 'k9' })).toThrow(
      /"k9" is not among the keys/,
    );
  });

  it('says a key is missing, in its own words, when its environment variable was not set', () => {
    const unset = process.env.SURELY_UNSET_PAYMENTS_KEY as string;
    const attempt = () => SecretBox.create({ keys: { k1: unset }, currentKeyId: 'k1' });
    expect(attempt).toThrow(SecretBoxError);
    expect(attempt).toThrow(/encryption key "k1" is missing \(undefined\).*environment variable/);
    expect(() => SecretBox.create({ keys: { k1: '' } })).toThrow(/"k1" is missing \(empty\)/);
    expect(() => SecretBox.create({ keys: undefined as never })).toThrow(
      /admin\.encryption\.keys must be an object/,
    );
  });

  it('rejects a stored value that is not an envelope', () => {
    const box = SecretBox.create({ keys: { k1 } });
    expect(() => box.decrypt('plain-text-token')).toThrow(/not an encrypted secret/);
  });
});
