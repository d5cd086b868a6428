/**
 * The agent kill proof (test/proofs/agent-kill.proof.ts) with the machine's cores kept busy by
 * one busy-loop process per core, which the proof starts and stops itself: 30 jobs, 6 kills (every
 * kill point once), at connector protocols 2 and 3. FAULT_JOBS / FAULT_KILLS / FAULT_LOAD override.
 */
process.env.FAULT_JOBS ??= '30';
process.env.FAULT_KILLS ??= '6';
process.env.FAULT_LOAD ??= 'cores';
await import('../proofs/agent-kill.proof.js');
