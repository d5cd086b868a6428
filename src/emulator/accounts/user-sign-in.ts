/**
 * Checks a user's e-mail and password (the sign-in pages, the claim page and the password
 * grant) through the emulator's CredentialGuard: throttled per e-mail and per source address,
 * scrypt off the event loop, the same work for an unknown e-mail. Nothing to clean up.
 */
import type { CredentialGuard } from '../store/credential-guard.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { User } from './user-repo.js';

/** See the file comment. */
export class UserSignIn {
  constructor(
    private readonly store: EmulatorStore,
    private readonly guard: CredentialGuard,
  ) {}

  /** The user when `email` exists and `password` matches; throws TooManyRequestsError when throttled. */
  async verify(email: string, password: string, source: string): Promise<User | undefined> {
    const found = this.store.users.credentials(email);
    const ok = await this.guard.verify({
      subject: `user:${email.trim().toLowerCase()}`,
      source,
      secret: password,
      stored: found?.passwordHash,
    });
    return ok ? found?.user : undefined;
  }

  /** Hashes a new password (SecretHasher, off the event loop). */
  hashPassword(password: string): Promise<string> {
    return this.guard.hasher.hash(password);
  }
}
