/**
 * The emulator kill proof (test/proofs/emulator-kill.proof.ts) in `npm test`, at its own size
 * (30 jobs, 6 kills; FAULT_EMULATOR_JOBS overrides). `npm run proofs` runs it as well.
 */
await import('../proofs/emulator-kill.proof.js');
