import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Provider credentials at rest (D8's CREDENTIAL_ENCRYPTION_KEY): AES-256-GCM, a fresh
 * 96-bit IV per value, and associated data naming what the value is (tenant, provider, field) so
 * a ciphertext copied onto another row or field does not decrypt.
 *
 * Key format: any secret of 32+ characters (recommended: `openssl rand -base64 32`). The AES key
 * is derived from it with HKDF-SHA256, so every encoding of enough entropy works. The key id is
 * the first 16 hex digits of SHA-256 of the derived key: stored beside each ciphertext, it names
 * the key without revealing it, and lets a rotated deployment decrypt with the previous key
 * (CREDENTIAL_ENCRYPTION_KEY_PREVIOUS) while writing under the new one.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

export interface Sealed {
  ciphertext: string;
  keyId: string;
}

export class CredentialDecryptionError extends Error {}

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(secret: string): Key {
  const bytes = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'shade-office', 'credential-encryption v1', 32));
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 16), bytes };
}

export class CredentialCipher {
  private readonly current: Key;
  private readonly keys: Map<string, Key>;

  constructor(secret: string, previousSecret?: string) {
    this.current = deriveKey(secret);
    this.keys = new Map([[this.current.id, this.current]]);
    if (previousSecret) {
      const previous = deriveKey(previousSecret);
      if (!this.keys.has(previous.id)) this.keys.set(previous.id, previous);
    }
  }

  /** Undefined when the deployment holds no key: nothing can be connected then (D9). */
  static fromSettings(settings: { CREDENTIAL_ENCRYPTION_KEY?: string | undefined; CREDENTIAL_ENCRYPTION_KEY_PREVIOUS?: string | undefined }): CredentialCipher | undefined {
    return settings.CREDENTIAL_ENCRYPTION_KEY ? new CredentialCipher(settings.CREDENTIAL_ENCRYPTION_KEY, settings.CREDENTIAL_ENCRYPTION_KEY_PREVIOUS) : undefined;
  }

  get keyId(): string {
    return this.current.id;
  }

  /** `context` is bound into the tag: decrypting needs the very same context. */
  encrypt(plaintext: string, context: string): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.bytes, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [FORMAT, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')];
    return { ciphertext: parts.join('.'), keyId: this.current.id };
  }

  decrypt(sealed: Sealed, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new CredentialDecryptionError(`no key with id ${sealed.keyId} is configured`);
    const [format, iv, body, tag] = sealed.ciphertext.split('.');
    if (format !== FORMAT || iv === undefined || body === undefined || tag === undefined) throw new CredentialDecryptionError('unrecognised ciphertext format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Never echo the ciphertext or the cause: either could help an attacker probing the key.
      throw new CredentialDecryptionError('credential failed authentication (wrong key or altered value)');
    }
  }

  /** True when the value was sealed under an older key and should be written again. */
  isStale(sealed: Pick<Sealed, 'keyId'>): boolean {
    return sealed.keyId !== this.current.id;
  }
}
