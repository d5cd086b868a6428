/**
 * What a validation refuses, for the tests of rules: the ValidationError (or every one of a
 * ValidationErrors) that a call throws. A call that throws nothing fails the test, and so does one
 * that throws any other error (it is thrown on).
 */
import { ValidationError, ValidationErrors } from '../../src/lib/errors.js';

/** The one ValidationError `run` throws (a ValidationErrors is not one). */
export function thrownValidationError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

/** "field: rule" of the one ValidationError `run` throws. */
export function refusal(run: () => unknown): string {
  const error = thrownValidationError(run);
  return `${error.field}: ${error.rule}`;
}

/** Every error of the validation `run` fails: a ValidationErrors' list, or the one ValidationError. */
export function thrownValidationErrors(run: () => unknown): ValidationError[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationErrors) return error.errors;
    if (error instanceof ValidationError) return [error];
    throw error;
  }
  throw new Error('expected a validation failure');
}

/** "field: rule" of every error of the validation `run` fails. */
export function refusals(run: () => unknown): string[] {
  return thrownValidationErrors(run).map((error) => `${error.field}: ${error.rule}`);
}
