/**
 * The admin API's driver endpoints, served from the catalog in drivers/printers/:
 *   GET /printing/v1/drivers/vendors/            array of vendor names
 *   GET /printing/v1/drivers/?vendor=&limit=&offset=   paginated Driver objects (vendor required)
 * A printer's driver is set with PATCH /printing/v1/printers/<id>/ {driver_id} (routes/printers.ts).
 * Reads need printing or printing.connectors.
 */
import { ValidationError } from '../../lib/errors.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { DriverAssignmentService } from './driver-assignment-service.js';
import { requireAnyScope } from '../accounts/bearer-auth.js';
import { envelope, parsePage } from '../http/pagination.js';
import { driverRequests, driverSchemas } from '../printers/printer-schemas.js';
import { operation } from '../http/schemas.js';

/** What the driver routes use. */
export interface DriverRouteContext {
  drivers: DriverAssignmentService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the driver routes. */
export const driverRoutes: RoutePlugin<DriverRouteContext> = async (app, { context }) => {
  const { drivers, baseUrl } = context;
  const read = { preHandler: requireAnyScope('printing', 'printing.connectors') };

  app.get(
    '/printing/v1/drivers/vendors',
    { ...read, schema: operation('ListDriverVendors', driverSchemas.vendors) },
    async () => drivers.vendors(),
  );

  app.get(
    '/printing/v1/drivers',
    { ...read, schema: operation('ListDrivers', driverSchemas.list, driverRequests.list) },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query);
      const vendor = query['vendor'];
      if (typeof vendor !== 'string' || vendor.trim() === '') {
        throw new ValidationError('vendor', 'required: a vendor name from GET /printing/v1/drivers/vendors/');
      }
      const all = drivers.driversOf(request.auth.organizationId, vendor);
      return envelope(request, baseUrl, page, all.length, all.slice(page.offset, page.offset + page.limit));
    },
  );
};
