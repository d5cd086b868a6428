/**
 * Turns the errors of Fastify's route schema validation (Ajv) into the emulator's
 * ValidationErrors, so a request rejected by a route schema gets the same 400 body as one
 * rejected by a service: every bad field named (`topics[0]`, `limit`) with its rule.
 * Pure: no I/O.
 */
import type { FastifySchemaValidationError } from 'fastify';
import { ValidationError, ValidationErrors } from '../../lib/errors.js';

/** The field an Ajv error is about, as a path (`a.b[0]`); header names get a `headers.` prefix. */
export function fieldOf(error: FastifySchemaValidationError, part: string): string {
  const segments = error.instancePath.split('/').filter((s) => s !== '');
  const missing = error.params['missingProperty'];
  if (typeof missing === 'string') segments.push(missing);
  const path = segments
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc === '' ? s : `${acc}.${s}`), '');
  if (part === 'headers') return path === '' ? 'headers' : `headers.${path}`;
  return path === '' ? part : path;
}

/** The schema error formatter of the emulator's routes (`app.setSchemaErrorFormatter`). */
export function schemaErrorsToValidation(
  errors: FastifySchemaValidationError[],
  part: string,
): ValidationErrors {
  return new ValidationErrors(
    errors.map(
      (e) =>
        new ValidationError(
          fieldOf(e, part),
          e.params['missingProperty'] ? 'is required' : (e.message ?? 'is invalid'),
        ),
    ),
  );
}
