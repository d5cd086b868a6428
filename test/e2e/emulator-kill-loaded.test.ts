/**
 * The emulator kill proof (test/proofs/emulator-kill.proof.ts) with the machine's cores kept busy
 * by one busy-loop process per core, which the proof starts and stops itself: 20 jobs, its 6
 * kills. FAULT_EMULATOR_JOBS / FAULT_LOAD override.
 */
process.env.FAULT_EMULATOR_JOBS ??= '20';
process.env.FAULT_LOAD ??= 'cores';
await import('../proofs/emulator-kill.proof.js');
