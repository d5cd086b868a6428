/**
 * The face of drivers/: what other domains may use of it, the driver assignment service built
 * over the database with its own repository (printers/capability-service.ts builds it beside the
 * capability service, both over one driver catalog). Other domains reach drivers/ repositories
 * only through here (test/unit/architecture.test.ts).
 */
export { type DriverAssignmentService, driverAssignmentOver } from './driver-assignment-service.js';
