/**
 * Equivalent mutants of `npm run mutate`: changes no test can tell from the original code,
 * because the program behaves the same. Each names its file, the mutated code (`original`, exactly
 * as in the source), the mutator and its replacement, and says why. `npm run mutate:survivors`
 * leaves them out of the score it prints and marks them; docs/testing.md lists them.
 */
export interface EquivalentMutant {
  /**
   * The file, as the report names it (src/...), or the end of its path from a folder on
   * (`http/outbound-address-policy.ts`) for a file that may move between folders.
   */
  file: string;
  /** The mutated code, exactly as in the source. */
  original: string;
  mutator: string;
  replacement: string;
  /** Part of the mutated line, when `original` alone occurs on other lines too. */
  line?: string;
  why: string;
}

const CLAMP_WHY =
  'a comparison with undefined is false, so without the typeof checks (or with either one alone) a missing count still leaves the field alone';

const FINAL_MOVES_WHY =
  'canMove answers false for a final state before it reads the moves table, so the entry is never read';

const DOWNLOAD_WAIT_REPORT =
  'a download waits only on a network, spool_write or tls_untrusted error, and reportWaiting reports nothing for the other two (network has no waiting reason, tls_untrusted is not retryable)';

const ABORT_REASON =
  'the abort reason is never read: a wait it ends is caught and dropped, and a download it aborts ends in the cancelled or stopped branch of the runner, which logs no message';

const LEDGER_KEEPS_JOBS = 'the ledger never deletes a job, so a queued job is always found';

const DOCUMENT_WAIT_ONLY_SPOOLED =
  'the runner keeps a document wait only for a `spooled` job whose fetch again failed (dropped once fetched or ended), and an unknown job has none, so its reason is undefined for any other job either way';

const FORGET_WHY =
  'forget() only frees memory: a job that ended is never queued again by this loop (a new offer of it is refused, the ledger holds it), so its waker, cancel mark and count of runner failures are never read again';
const FORGET_CONDITION = "state === 'completed' || state === 'failed' || state === 'cancelled'";
/** The mutants of JobLoop.forget() (original, mutator, replacement). */
const FORGET_MUTANTS: [string, string, string][] = [
  [
    "{\n    this.wakers.delete(jobId);\n    this.waits.forget(jobId);\n    if (!this.cancels.has(jobId)) return;\n    const state = this.deps.ledger.get(jobId)?.state;\n    if (state === 'completed' || state === 'failed' || state === 'cancelled') this.cancels.delete(jobId);\n  }",
    'BlockStatement',
    '{}',
  ],
  ['this.deps.ledger.get(jobId)?.state', 'OptionalChaining', 'this.deps.ledger.get(jobId).state'],
  ['!this.cancels.has(jobId)', 'ConditionalExpression', 'true'],
  [FORGET_CONDITION, 'ConditionalExpression', 'true'],
  [FORGET_CONDITION, 'ConditionalExpression', 'false'],
  [
    FORGET_CONDITION,
    'LogicalOperator',
    "(state === 'completed' || state === 'failed') && state === 'cancelled'",
  ],
  ["state === 'completed' || state === 'failed'", 'ConditionalExpression', 'false'],
  [
    "state === 'completed' || state === 'failed'",
    'LogicalOperator',
    "state === 'completed' && state === 'failed'",
  ],
  ["state === 'completed'", 'ConditionalExpression', 'false'],
  ["state === 'completed'", 'EqualityOperator', "state !== 'completed'"],
  ["'completed'", 'StringLiteral', '""'],
  ["state === 'failed'", 'ConditionalExpression', 'false'],
  ["state === 'failed'", 'EqualityOperator', "state !== 'failed'"],
  ["'failed'", 'StringLiteral', '""'],
  ["state === 'cancelled'", 'ConditionalExpression', 'false'],
  ["state === 'cancelled'", 'EqualityOperator', "state !== 'cancelled'"],
  ["'cancelled'", 'StringLiteral', '""'],
];

const PR = 'src/protocol/print-request.ts';
const TC = 'src/protocol/tpfm-codes.ts';
const TS = 'src/emulator/oauth/token-service.ts';
const OAP = 'http/outbound-address-policy.ts';
const EIP = 'http/embedded-ipv4.ts';
const TCM = 'tpfm/tpfm-commands.ts';
const TA = 'tpfm/tpfm-auth.ts';
const RU = 'src/protocol/oauth-redirect-uri.ts';
const OB = 'src/store/outbox.ts';
const PG = 'src/protocol/tpfm-progress.ts';
const LJ = 'src/protocol/tpfm-local-job.ts';
const TEXT_LAST = 'the text rule is the last branch whatever the kind, and Status is read by its name first';
const UNDEFINED_COMPARED =
  'a comparison with undefined is false, so a count given alone is never refused either way';
const SC = 'src/protocol/oauth-scopes.ts';
const CR = 'src/protocol/oauth-client-rules.ts';
const SAME_SCHEME =
  'the port-less comparison includes the scheme, and http is accepted only as a loopback URI, so a match needs both to be loopback anyway';
const UNDEFINED_LEFT_OUT = 'a parameter set to undefined is read as missing, the same as one left out';
const ERROR_RECORDED =
  'the value is undefined only after its error was recorded, and the request is refused with the same errors either way';
const PROPERTIES_KEPT =
  'the properties member is then also kept as the field `properties`, which no rule reads';

const FILLED_BY_MERGE =
  'a capability without a default has a custom value (else the job is sent unchanged the line before), and mergeCustomCapabilities sets every custom value over the base anyway';

const NO_BATCH_NO_DELIVERY =
  'a round without a batch delivered nothing, so the delivered check breaks the loop the same';
const EMPTY_ROUND =
  'without batches the round answers 0 batches, 0 delivered and full false anyway, and the loop reads full only with something delivered';
const DUE_LOOK =
  'the look at the earliest head only spares a query: dueBatch itself answers only the jobs whose head is due now, none when no head is';
const LOOP_RESETS =
  'run() sets notified and urgent to false before its first round, and nothing reads them before run() starts';
const LISTENER_REMOVED =
  'done() removes its abort listener itself, so whether it was added once or not, it runs at most once';
const STALE_WAKE =
  'every pause sets wake and endLinger itself, and a callback left over from a pause that ended only resolves a settled promise and clears a timer that already fired';

export const EQUIVALENT_MUTANTS: readonly EquivalentMutant[] = [
  {
    file: PR,
    original: "typeof value === 'boolean'",
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'String(true) and String(false) are read as the same booleans by the text rule below',
  },
  {
    file: PR,
    original: "'boolean'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'String(true) and String(false) are read as the same booleans by the text rule below',
  },
  {
    file: PR,
    original: "typeof properties === 'object'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'a string, number or boolean properties member has no entries or only index keys (0, 1, ...), which name no field',
  },
  {
    file: PR,
    original: "key.toLowerCase() !== 'properties'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: PROPERTIES_KEPT,
  },
  {
    file: PR,
    original: 'key.toLowerCase()',
    mutator: 'MethodExpression',
    replacement: 'key.toUpperCase()',
    line: "!== 'properties'",
    why: PROPERTIES_KEPT,
  },
  {
    file: PR,
    original: "'properties'",
    mutator: 'StringLiteral',
    replacement: '""',
    line: "if (key.toLowerCase() !== 'properties')",
    why: PROPERTIES_KEPT,
  },
  {
    file: PR,
    original: 'fileid === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: `${ERROR_RECORDED} (the id pattern matches the text "undefined")`,
  },
  {
    file: PR,
    original: 'value === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: "value === 1 ? 'portrait' : 'landscape'",
    why: ERROR_RECORDED,
  },
  ...(
    [
      ['width === undefined || length === undefined', 'ConditionalExpression', 'false'],
      [
        'width === undefined || length === undefined',
        'LogicalOperator',
        'width === undefined && length === undefined',
      ],
      ['width === undefined', 'ConditionalExpression', 'false'],
      ['length === undefined', 'ConditionalExpression', 'false'],
    ] as const
  ).map(([original, mutator, replacement]) => ({
    file: PR,
    original,
    mutator,
    replacement,
    why: ERROR_RECORDED,
  })),
  {
    file: PR,
    original: 'a.to - b.to',
    mutator: 'ArithmeticOperator',
    replacement: 'a.to + b.to',
    why: 'ranges starting on the same page merge to the same range in either order',
  },
  ...['completed', 'failed', 'cancelled'].map((state) => ({
    file: 'src/store/job-ledger.ts',
    original: '[]',
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    why: `${state}: ${FINAL_MOVES_WHY}`,
  })),
  {
    file: 'src/agent/copyjobs/local-job-plan.ts',
    original: "typeof p === 'number' && typeof w === 'number'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: CLAMP_WHY,
  },
  {
    file: 'src/agent/copyjobs/local-job-plan.ts',
    original: "typeof p === 'number' && typeof w === 'number'",
    mutator: 'LogicalOperator',
    replacement: "typeof p === 'number' || typeof w === 'number'",
    why: CLAMP_WHY,
  },
  {
    file: 'src/agent/copyjobs/local-job-plan.ts',
    original: "typeof p === 'number'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: CLAMP_WHY,
  },
  {
    file: 'src/agent/copyjobs/local-job-plan.ts',
    original: "typeof w === 'number'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: CLAMP_WHY,
  },
  {
    file: 'src/agent/copyjobs/local-job-plan.ts',
    original: 'p > w',
    mutator: 'EqualityOperator',
    replacement: 'p >= w',
    why: 'when the colour pages equal the pages, clamping sets the field to the value it already has',
  },
  {
    file: TC,
    original: '!value',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: "atob('') is '' and undefined.trim() throws into the catch that answers '': the same empty text",
  },
  {
    file: TC,
    original: 'value.trim()',
    mutator: 'MethodExpression',
    replacement: 'value',
    line: 'atob(',
    why: 'atob skips ASCII whitespace itself',
  },
  {
    file: TC,
    original: '{ fatal: false }',
    mutator: 'ObjectLiteral',
    replacement: '{}',
    why: 'fatal is false by default: TextDecoder without options also replaces bytes that are not UTF-8',
  },
  {
    file: TC,
    original: 'value === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'test(value)',
    why: 'the pattern tested on undefined sees the text "undefined", which has no digits: undefined either way',
  },
  {
    file: TC,
    original: 'value.trim()',
    mutator: 'MethodExpression',
    replacement: 'value',
    line: 'Number(',
    why: 'Number() ignores blanks around digits itself',
  },
  {
    file: TS,
    original: 'found?.client',
    mutator: 'OptionalChaining',
    replacement: 'found.client',
    why: 'read only when the secret matched, which needs a stored client',
  },
  {
    file: TS,
    original: "'password'",
    mutator: 'StringLiteral',
    replacement: '""',
    line: 'this.scopesFor(',
    why: 'the scope rules treat only refresh_token and client_credentials specially: the password grant gets the same scopes as an unnamed one',
  },
  {
    file: TS,
    original: 'record.spentAt !== null',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'markSpent refuses a token that is already spent, so the same branch is taken',
  },
  {
    file: TS,
    original: '!answer || !next',
    mutator: 'LogicalOperator',
    replacement: '!answer && !next',
    why: 'every remembered answer holds a refresh token, so next is missing only when answer is',
  },
  {
    file: TS,
    original: 'next.revokedAt !== null',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'tokens are revoked by family only, so a revoked next token means the presented token was revoked too, which is refused before',
  },
  {
    file: TS,
    original: 'nonce !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'a nonce claim set to undefined is left out of the signed JSON',
  },
  {
    file: TS,
    original: "typeof family === 'string'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'without a family id the revoked-family lookup finds nothing',
  },
  {
    file: OAP,
    original: '/%.*$/',
    mutator: 'Regex',
    replacement: '/%.*/',
    why: 'the greedy .* reaches the end of the text anyway; a line break after % leaves no IP address either way',
  },
  {
    file: OAP,
    original: 'error || !socket',
    mutator: 'LogicalOperator',
    replacement: 'error && !socket',
    why: 'undici answers either an error without a socket or a socket without an error: both forms agree on those',
  },
  {
    file: OAP,
    original: "'no socket'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'undici never answers without both an error and a socket, so the fallback error is never made',
  },
  {
    file: OAP,
    original: 'socket.remoteAddress === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'a connected socket has a remote address; only one closed before the callback has none, and no test can hold it there',
  },
  {
    file: OAP,
    original: "''",
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    line: "const [address = '', prefixText, extra]",
    why: 'split always answers at least one part, so the default of address is never used',
  },
  {
    file: OAP,
    original: "'no address'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'dns.lookup with all: true answers an error or at least one address, never an empty list',
  },
  {
    file: EIP,
    original: '/(\\d+)\\.(\\d+)\\.(\\d+)\\.(\\d+)$/',
    mutator: 'Regex',
    replacement: '/(\\d+)\\.(\\d+)\\.(\\d+)\\.(\\d+)/',
    why: 'in a valid IPv6 literal a dotted IPv4 part can only be its tail',
  },
  {
    file: EIP,
    original: "''",
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    line: "const [head = '', rest]",
    why: 'split always answers at least one part, so the default of head is never used',
  },
  {
    file: EIP,
    original: 'rest === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'new Array<string>',
    why: 'without :: the literal has all eight groups, so the zeros to fill are 8 - 8 - 0: none',
  },
  {
    file: TCM,
    original: 'maxEntries === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: UNDEFINED_LEFT_OUT,
  },
  {
    file: TCM,
    original: 'modifiedSeconds === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: UNDEFINED_LEFT_OUT,
  },
  {
    file: TCM,
    original: 'hold === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'intParam answers undefined for a missing value itself',
  },
  {
    file: TCM,
    original: '!isValidationError(error)',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the local-job parsers throw nothing but ValidationErrors',
  },
  {
    file: RU,
    original: "url.hostname === ''",
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the URL parser refuses an https URL without a host before this check',
  },
  {
    file: RU,
    original: "stored.kind === 'loopback' && candidate.kind === 'loopback'",
    mutator: 'LogicalOperator',
    replacement: "stored.kind === 'loopback' || candidate.kind === 'loopback'",
    why: SAME_SCHEME,
  },
  {
    file: RU,
    original: "stored.kind === 'loopback'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: SAME_SCHEME,
  },
  {
    file: RU,
    original: "candidate.kind === 'loopback'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: SAME_SCHEME,
  },
  {
    file: SC,
    original: '/[ \\t\\r\\n\\f]+/',
    mutator: 'Regex',
    replacement: '/[ \\t\\r\\n\\f]/',
    why: 'the empty parts between single blanks are filtered out just after',
  },
  {
    file: SC,
    original: "''",
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    line: "scope.split('.')[0] ?? ''",
    why: 'split always answers at least one part, so the default is never used',
  },
  {
    file: CR,
    original: 'error instanceof ValidationError',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'every check throws ValidationError only',
  },
  {
    file: CR,
    original: 'errors.length > 1',
    mutator: 'EqualityOperator',
    replacement: 'errors.length >= 1',
    why: 'one error was thrown on its own on the line before',
  },
  {
    file: OB,
    original: 'ids.length === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'a transaction over no ids changes nothing either',
  },
  {
    file: OB,
    original: '[]',
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    line: 'const taken: string[] = []',
    why: 'a first exclusion of one job id no job has leaves the same rows',
  },
  {
    file: OB,
    original: 'failed.length === 0 && discardJobs.length === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the fast path only spares a transaction around the one DELETE; the transaction below runs the same DELETE and nothing else when there is nothing failed or discarded',
  },
  {
    file: OB,
    original: '{\n      this.deliveredMany(delivered);\n      return dropped;\n    }',
    mutator: 'BlockStatement',
    replacement: '{}',
    why: 'falls through to the transaction, which runs the same DELETE and nothing else when there is nothing failed or discarded, and returns the same empty map',
  },
  {
    file: 'store/outbox-batches.ts',
    original: 'chosen.length === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'a shortcut: with no job chosen the second query joins an empty json_each and returns no rows, so the answer is the same empty batch',
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: '[]',
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    line: 'const failed: { id: number; error: string }[] = []',
    why: 'an element that is not a row has no id: the failed attempt it records matches no outbox row, and the other rows are settled as before in the same transaction',
  },
  {
    file: OB,
    original: '[]',
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    line: 'exclude: Iterable<string> = []',
    why: 'a default that leaves out one job id no job has behaves as an empty list',
  },
  {
    file: PG,
    original: "''",
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    line: "parts.pop() ?? ''",
    why: 'split always answers at least one part, so the default is never used',
  },
  {
    file: LJ,
    original: "'text'",
    mutator: 'StringLiteral',
    replacement: '""',
    line: 'max: 255',
    why: TEXT_LAST,
  },
  {
    file: LJ,
    original: "'text'",
    mutator: 'StringLiteral',
    replacement: '""',
    line: 'max: 64',
    why: TEXT_LAST,
  },
  {
    file: LJ,
    original: "'text'",
    mutator: 'StringLiteral',
    replacement: '""',
    line: 'max: 16',
    why: TEXT_LAST,
  },
  {
    file: LJ,
    original: "{ kind: 'text', max: 16 }",
    mutator: 'ObjectLiteral',
    replacement: '{}',
    why: TEXT_LAST,
  },
  {
    file: LJ,
    original: 'value !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'out[name] = value',
    why: 'a field is undefined only after its error was recorded, and the errors are thrown either way',
  },
  {
    file: LJ,
    original: 'f.PrintedColorPages !== undefined &&\n    f.PrintedPages !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'f.PrintedColorPages !== undefined &&\n    f.PrintedPages !== undefined',
    mutator: 'LogicalOperator',
    replacement: 'f.PrintedColorPages !== undefined || f.PrintedPages !== undefined',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'f.PrintedColorPages !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'f.PrintedPages !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'totalColor !== undefined && f.TotalPrintedPages !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'totalColor !== undefined && f.TotalPrintedPages !== undefined',
    mutator: 'LogicalOperator',
    replacement: 'totalColor !== undefined || f.TotalPrintedPages !== undefined',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'totalColor !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: LJ,
    original: 'f.TotalPrintedPages !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: UNDEFINED_COMPARED,
  },
  {
    file: 'src/protocol/tpfm-ini.ts',
    original: '[]',
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    line: 'section?.lines ?? []',
    why: 'the default is read only for a missing section, and its one line holds no "=", so it is skipped like any such line',
  },
  {
    file: 'src/protocol/sfapi-block-list.ts',
    original: 'true',
    mutator: 'BooleanLiteral',
    replacement: 'false',
    line: 'ignoreAttributes: true',
    why: 'kept attributes come as a ":@" key after the element name of their node, and the parser reads only the first key and the element text',
  },
  {
    file: 'src/protocol/sfapi-block-list.ts',
    original: 'bytes.length === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the base64 pattern needs one character and a length of 4, and at most two "=": every id it passes decodes to at least one byte',
  },
  {
    file: 'src/protocol/sfapi-block-list.ts',
    original: "text === ''",
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'with trimValues the parser drops empty and blank texts, so an empty entry has no text node at all',
  },
  {
    file: 'src/protocol/sfapi-block-list.ts',
    original: "''",
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    line: "text === ''",
    why: 'with trimValues the parser drops empty and blank texts, so an empty entry has no text node at all',
  },
  {
    file: 'src/protocol/paper-sizes.ts',
    original: '!byPwg.has(paper.pwg)',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'for (const paper of namedCustomPapers)',
    why: 'no named custom size shares a keyword with a desktop id or another named size (a test pins that), so the guard never skips one',
  },
  {
    file: 'src/protocol/capability-merge.ts',
    original: 'error instanceof ValidationError',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'if (error instanceof ValidationError) errors.push(error);',
    why: 'validateTrayNames throws ValidationError only, and the names it lowers are strings: the original names from the base and custom names stored by patchTray as strings or null',
  },
  {
    file: 'src/protocol/capability-merge.ts',
    original: 'next.trays?.[String(tray.index)]',
    mutator: 'OptionalChaining',
    replacement: 'next.trays[String(tray.index)]',
    why: 'applySimplifiedPatch always gives next its own trays object before patchTrays reads it',
  },
  {
    file: 'src/protocol/blob-capabilities.ts',
    original: "typeof v !== 'number'",
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'v < min || v > max',
    why: 'Number.isInteger answers false for every value that is not a number, so the next check refuses it the same way',
  },
  {
    file: 'jobs/job-outcomes.ts',
    original: 'stateAtSubmit',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'if (stateAtSubmit)',
    why: 'a job reaches submitted once (the ledger has no move back out of submitted), so no state of an earlier submission is there for the undefined to overwrite, and taking an undefined entry answers undefined as a missing one does',
  },
  {
    file: 'jobs/ticket-overrides.ts',
    original: '{\n      if (base[name] === undefined) Object.assign(base, { [name]: custom[name] });\n    }',
    mutator: 'BlockStatement',
    replacement: '{}',
    why: FILLED_BY_MERGE,
  },
  {
    file: 'jobs/ticket-overrides.ts',
    original: 'base[name] === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: FILLED_BY_MERGE,
  },
  {
    file: 'jobs/ticket-overrides.ts',
    original: '{ [name]: custom[name] }',
    mutator: 'ObjectLiteral',
    replacement: '{}',
    why: FILLED_BY_MERGE,
  },
  {
    file: 'jobs/waiting-report.ts',
    original: '/^.*bad response from printer: /',
    mutator: 'Regex',
    replacement: '/.*bad response from printer: /',
    why: "the phrase follows the IPP operation's name, which holds no line break, so the match starts at the first character with or without the anchor",
  },
  {
    file: 'jobs/waiting-report.ts',
    original: 'default:\n      return undefined;',
    mutator: 'ConditionalExpression',
    replacement: 'default:',
    why: 'the last case falling through leaves the switch at the end of the function, which answers undefined too',
  },
  {
    file: 'jobs/waiting-report.ts',
    original: 'entry.reportedAt !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'for a reason never reported, now - undefined is NaN and NaN < repeatMs is false: the event is sent either way',
  },
  {
    file: 'jobs/reconcile-step.ts',
    original: 'job.spoolPath',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'if (job.spoolPath)',
    why: "statSync(undefined) throws a TypeError, which the catch answers by keeping the offer's size, as a job without a spool file does",
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'round.batches === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: NO_BATCH_NO_DELIVERY,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'batches.length === 0',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'if (batches.length === 0)',
    why: EMPTY_ROUND,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'false',
    mutator: 'BooleanLiteral',
    replacement: 'true',
    line: 'return { batches: 0, delivered: 0, full: false }',
    why: EMPTY_ROUND,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'next === undefined || next > this.clock.now()',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: DUE_LOOK,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'next === undefined || next > this.clock.now()',
    mutator: 'LogicalOperator',
    replacement: 'next === undefined && next > this.clock.now()',
    why: DUE_LOOK,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'next === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'if (next === undefined || next > this.clock.now())',
    why: DUE_LOOK,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'next > this.clock.now()',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'if (next === undefined || next > this.clock.now())',
    why: DUE_LOOK,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'false',
    mutator: 'BooleanLiteral',
    replacement: 'true',
    line: 'private notified = false',
    why: LOOP_RESETS,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'false',
    mutator: 'BooleanLiteral',
    replacement: 'true',
    line: 'private urgent = false',
    why: LOOP_RESETS,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: "'fixed'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'pause() compares its mode with wake and linger only: any other text is the fixed wait',
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: '{ once: true }',
    mutator: 'ObjectLiteral',
    replacement: '{}',
    why: LISTENER_REMOVED,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: 'true',
    mutator: 'BooleanLiteral',
    replacement: 'false',
    line: "signal.addEventListener('abort', done, { once: true })",
    why: LISTENER_REMOVED,
  },
  {
    file: 'jobs/outbox-sender.ts',
    original: '{\n      this.wake = undefined;\n      this.endLinger = undefined;\n    }',
    mutator: 'BlockStatement',
    replacement: '{}',
    why: STALE_WAKE,
  },
  {
    file: 'jobs/claiming-download.ts',
    original: 'keepUpTo === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'ChannelClient.download reads keepUpTo only when it is not undefined, so { keepUpTo: undefined } is the same as no keepUpTo',
  },
  {
    file: 'jobs/submit-step.ts',
    original: 'created !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: '...(created !== undefined ? { printerJobId: created } : {}),',
    why: "a move given printerJobId undefined keeps the job's own, and the attempt's move to submitting left none",
  },
  {
    file: 'jobs/submit-step.ts',
    original: 'cause !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'REFUSED_CODES.has(undefined) is false, so a cause without a code is not a refusal either way',
  },
  {
    file: 'jobs/download-step.ts',
    original: "to === 'downloading'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: "const downloading = this.outcomes.step(job.jobId, 'downloading', to === 'downloading' ? details : {}, {",
    why: 'the only details a move to spooled carries are its spool path, which the move that follows records again; a row in between is never seen outside the transaction',
  },
  {
    file: 'jobs/download-step.ts',
    original: "error instanceof RetryableError && error.code === 'spool_write'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: DOWNLOAD_WAIT_REPORT,
  },
  {
    file: 'jobs/download-step.ts',
    original: "error instanceof RetryableError && error.code === 'spool_write'",
    mutator: 'LogicalOperator',
    replacement: "error instanceof RetryableError || error.code === 'spool_write'",
    why: DOWNLOAD_WAIT_REPORT,
  },
  {
    file: 'jobs/download-step.ts',
    original: "error.code === 'spool_write'",
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: "if (error instanceof RetryableError && error.code === 'spool_write')",
    why: DOWNLOAD_WAIT_REPORT,
  },
  {
    file: 'jobs/job-runner.ts',
    original: '() => false',
    mutator: 'ArrowFunction',
    replacement: '() => undefined',
    why: 'the default pause is read only through `!pause(job)`, and `!undefined` is true as `!false` is',
  },
  {
    file: 'jobs/job-loop.ts',
    original: "'job cancelled'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: ABORT_REASON,
  },
  {
    file: 'jobs/job-loop.ts',
    original: "'agent stopping'",
    mutator: 'StringLiteral',
    replacement: '""',
    why: ABORT_REASON,
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: 'job?.state',
    mutator: 'OptionalChaining',
    replacement: 'job.state',
    why: LEDGER_KEEPS_JOBS,
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: 'job !== undefined',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: LEDGER_KEEPS_JOBS,
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: 'job && this.deps.runner.waitsForDocument(job)',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: DOCUMENT_WAIT_ONLY_SPOOLED,
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: 'job && this.deps.runner.waitsForDocument(job)',
    mutator: 'LogicalOperator',
    replacement: 'job || this.deps.runner.waitsForDocument(job)',
    why: DOCUMENT_WAIT_ONLY_SPOOLED,
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: 'this.deps.running()',
    mutator: 'ConditionalExpression',
    replacement: 'true',
    line: 'if (this.deps.running()) this.tryBeside(',
    why: 'stop() clears every timer (clear()), so once the loop stopped no job waits and comeBack returns before this check',
  },
  {
    file: 'jobs/out-of-line-waits.ts',
    original: '{\n    this.broken.delete(jobId);\n  }',
    mutator: 'BlockStatement',
    replacement: '{}',
    why: FORGET_WHY,
  },
  {
    file: 'jobs/job-loop.ts',
    original: 'this.cancels.has(jobId)',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: "if (this.cancels.has(jobId)) waker.abort(new Error('job cancelled'));",
    why: 'every phase asks control.cancelled() before it waits, so a cancelled job queued again is cancelled before its waker could matter',
  },
  {
    file: TA,
    original: 'header === undefined',
    mutator: 'ConditionalExpression',
    replacement: 'false',
    line: 'const match = header === undefined ? null',
    why: 'RegExp.exec(undefined) tests the text "undefined", which does not start with Basic, so a missing header still parses to undefined',
  },
  ...FORGET_MUTANTS.map(([original, mutator, replacement]) => ({
    file: 'jobs/job-loop.ts',
    original,
    mutator,
    replacement,
    line: original.startsWith('{')
      ? undefined
      : original.startsWith('this.deps')
        ? 'const state = this.deps.ledger.get(jobId)?.state;'
        : original.startsWith('!')
          ? 'if (!this.cancels.has(jobId)) return;'
          : "if (state === 'completed' || state === 'failed' || state === 'cancelled') this.cancels.delete(jobId);",
    why: FORGET_WHY,
  })),
];
