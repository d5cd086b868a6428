/**
 * Plain-language descriptions of OAuth scopes for the consent page. Pure; nothing to clean up.
 */

const WORDS: Readonly<Record<string, string>> = {
  printing: 'Send documents to your printers and see their status',
  'printing.connectors': 'Run a print connector that receives print jobs for your organization',
  reporting: 'Read printing reports of your organization',
  account: 'See and change your account details',
  webhooks: 'Create, change and delete webhooks',
  'webhooks.readonly': 'See the webhooks of your organization',
  openid: 'Confirm who you are',
  profile: 'See your name',
  email: 'See your email address',
  cloud: 'Use your cloud storage profile',
};

/** The plain words for one scope; unknown sub-scopes fall back to their family's words. */
export function describeScope(scope: string): string {
  const exact = WORDS[scope];
  if (exact) return exact;
  const family = scope.split('.')[0] ?? scope;
  const base = WORDS[family];
  return base ? `${base} (${scope})` : `Access: ${scope}`;
}
