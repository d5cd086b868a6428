/**
 * Sealing of webhook Basic passwords: the emulator must send them, so they are encrypted
 * (AES-256-GCM) rather than hashed. The key is a random 32-byte file, created 0600 in a 0700
 * directory under the data directory, so a copied database alone does not reveal the passwords.
 * No resources to clean up.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const PREFIX = 'v1';

/** Seals and opens short secrets with one key. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /**
   * Loads the key from `<dataDir>/keys/webhook-secrets.key`, creating it (0600, directory 0700)
   * on first use. Throws when the file exists with the wrong size.
   */
  static async open(dataDir: string): Promise<SecretBox> {
    const dir = join(dataDir, 'keys');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const path = join(dir, 'webhook-secrets.key');
    try {
      await writeFile(path, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const key = await readFile(path);
    if (key.length !== KEY_BYTES) throw new Error(`${path}: a webhook key file must hold ${KEY_BYTES} bytes`);
    return new SecretBox(key);
  }

  /** A key that lives only in this process (for tools and tests that need no persistence). */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(KEY_BYTES));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [PREFIX, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The plain text of a sealed value; throws when it was sealed with another key or altered. */
  open(sealed: string): string {
    const [prefix, iv, tag, body] = sealed.split('.');
    if (prefix !== PREFIX || iv === undefined || tag === undefined || body === undefined)
      throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
