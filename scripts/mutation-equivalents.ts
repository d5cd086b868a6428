/**
 * Equivalent mutants of `npm run mutate`: changes no test can tell from the original code,
 * because the program behaves the same. Each names its file, the mutated code (`original`, exactly
 * as in the source), the mutator and its replacement, and says why. `npm run mutate:survivors`
 * leaves them out of the score it prints and marks them; docs/testing.md lists them.
 */
export interface EquivalentMutant {
  /** The file, as the report names it (src/...). */
  file: string;
  /** The mutated code, exactly as in the source. */
  original: string;
  mutator: string;
  replacement: string;
  why: string;
}

const CLAMP_WHY =
  'a comparison with undefined is false, so without the typeof checks (or with either one alone) a missing count still leaves the field alone';

const FINAL_MOVES_WHY =
  'canMove answers false for a final state before it reads the moves table, so the entry is never read';

export const EQUIVALENT_MUTANTS: readonly EquivalentMutant[] = [
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
];
