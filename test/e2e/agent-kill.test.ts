/**
 * The agent kill proof (test/proofs/agent-kill.proof.ts) at the size `npm test` runs: 48 jobs,
 * 9 kills, every kill point, once at each connector protocol, 2, 3 and 4 (FAULT_PROTOCOLS). `npm run proofs` runs the same proof at 200 jobs / 20 kills.
 * FAULT_JOBS / FAULT_KILLS still override both.
 */
process.env.FAULT_JOBS ??= '48';
process.env.FAULT_KILLS ??= '9';
await import('../proofs/agent-kill.proof.js');
