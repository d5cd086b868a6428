/**
 * The face of groups/: what other domains may use of its repositories, which is the rule of who
 * may use a printer and whether a printer is assigned, as SQL conditions over its assignment
 * tables (printers/printer-repo.ts and printers/printer-access-repo.ts read printers with them). Other domains import groups/ repositories only from here
 * (test/unit/architecture.test.ts).
 */
export { ASSIGNED_SQL, ASSIGNED_TO_GROUP_SQL, USABLE_BY_USER_SQL } from './assignment-repo.js';
