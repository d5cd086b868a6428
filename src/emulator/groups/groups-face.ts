/**
 * The face of groups/: what other domains may use of its repositories, which is the rule of who
 * may use a printer as an SQL condition over its assignment tables (printers/printer-repo.ts lists
 * a user's printers with it). Other domains import groups/ repositories only from here
 * (test/unit/architecture.test.ts).
 */
export { USABLE_BY_USER_SQL } from './assignment-repo.js';
