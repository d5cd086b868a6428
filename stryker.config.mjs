// @ts-check
/**
 * Mutation testing of the core (`npm run mutate`, docs/testing.md). Each listed file is mutated
 * and its mutants are run against the unit tests that import it (vitest.mutate.config.ts).
 * Incremental: a re-run tests again only the mutants whose code or covering tests changed since
 * the last run (reports/stryker-incremental.json, kept out of git).
 *
 * Equivalent mutants (no test can tell them from the original) are marked beside the code with a
 * `Stryker disable next-line <mutator>: <why>` comment, and listed in docs/testing.md.
 *
 * One file at a time: `npm run mutate -- --mutate src/store/job-ledger.ts`.
 */

/** The core: the files whose rules every release depends on. */
const core = [
  // The agent's store: the job ledger and the outbox (with its row ids).
  'src/store/job-ledger.ts',
  'src/store/ledger-job.ts',
  'src/store/outbox.ts',
  'src/store/outbox-batches.ts',
  'src/store/event-ids.ts',
  'src/store/transaction-runner.ts',
  // The job path's steps, wherever under src/agent they live (the folder may move).
  'src/agent/**/{download-step,document-check,submit-step,ticket-overrides,reconcile-step,watch-step,held-documents,job-runner,job-loop,out-of-line-waits,download-slots,job-outcomes,claiming-download,waiting-report,outbox-sender,inline-documents,spool-sweep}.ts',
  // The pure protocol modules.
  'src/protocol/*.ts',
  // The token service and the OAuth client rules (wherever under src/emulator they live: the
  // emulator's folders may move).
  'src/emulator/**/token-service.ts',
  'src/emulator/**/client-creation-limits.ts',
  // /TPFM/ commands, and the /TPFM/ authentication with its connection proofs.
  'src/emulator/**/{tpfm-commands,tpfm-auth,connection-proofs}.ts',
  // Local copy-job plans.
  'src/agent/copyjobs/local-job-plan.ts',
  // Webhook retry rules and the outbound address policy.
  'src/emulator/**/webhook-retry-rules.ts',
  'src/emulator/**/{outbound-address-policy,embedded-ipv4}.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  mutate: core,
  coverageAnalysis: 'perTest',
  concurrency: 1,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'html', 'json', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, reportMutants: false, reportTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: [
    'dist',
    'dist-deb',
    'coverage',
    '.printrelay-demo',
    '.scratch',
    'packaging',
    'test/e2e',
    'test/proofs',
  ],
  timeoutMS: 20_000,
};
