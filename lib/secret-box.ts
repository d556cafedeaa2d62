import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals short secrets (the Default key, webhook secrets) with AES-256-GCM under a 32-byte key kept
 * outside the store when DASHBOARD_SECRET_KEY is set (lib/store/sealing-key.ts). Each value is bound to
 * where it belongs (`binding`, the GCM associated data: its kind, organization and row), so a sealed
 * value copied into another organization's or key's row does not open there.
 * Sealed form: `v2.<iv>.<tag>.<ciphertext>` (base64url). `v1` values (no binding) open only through
 * `openUnbound`, which the start-up pass that re-seals them uses.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secret box key must be 32 bytes');
  }

  seal(plain: string, binding: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
  }

  /** The plain text, or null when the value was sealed under another key or binding, or altered. */
  open(sealed: string, binding: string): string | null {
    return this.decrypt(sealed, 'v2', binding);
  }

  /** A value sealed before bindings existed (`v1`); null for anything else. */
  openUnbound(sealed: string): string | null {
    return this.decrypt(sealed, 'v1', null);
  }

  private decrypt(sealed: string, wanted: string, binding: string | null): string | null {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== wanted || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      if (binding !== null) decipher.setAAD(Buffer.from(binding, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
