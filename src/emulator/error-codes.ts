/**
 * The error codes the emulator raises beyond lib's own (lib/errors.ts: invalid_request,
 * not_found, conflict, gone, forbidden, too_many_requests), by the domain that raises them. They
 * join lib's ErrorCodes, so every throw site and every comparison of a code is type-checked; the
 * OAuth server's subset is OAuthErrorCode (oauth/oauth-errors.ts). Types only.
 */
export {};

declare module '../lib/errors.js' {
  interface ErrorCodes {
    // accounts/: users, memberships, invitations.
    email_taken: 'emulator';
    already_member: 'emulator';
    already_invited: 'emulator';
    invitation_accepted: 'emulator';
    invitation_expired: 'emulator';
    last_admin: 'emulator';
    // clients/: OAuth client management and its creation limits.
    too_many_clients: 'emulator';
    rate_limited: 'emulator';
    tenant_mode_multi_clients_exist: 'emulator';
    // partner/: organizations.
    name_taken: 'emulator';
    // oauth/: the RFC 6749 and RFC 6750 errors.
    invalid_client: 'emulator';
    invalid_grant: 'emulator';
    invalid_scope: 'emulator';
    unauthorized_client: 'emulator';
    unsupported_grant_type: 'emulator';
    access_denied: 'emulator';
    authorization_pending: 'emulator';
    expired_token: 'emulator';
    slow_down: 'emulator';
    invalid_token: 'emulator';
    insufficient_scope: 'emulator';
    // files/: uploads and fetched documents.
    too_large: 'emulator';
    block_count: 'emulator';
    fetch_failed: 'emulator';
    // http/: document downloads beyond their caps (download-gate.ts).
    downloads_busy: 'emulator';
    // pull/tpfm/: a /TPFM/ command's failure (its X-FMP-Return code rides along).
    tpfm_failure: 'emulator';
  }
}
