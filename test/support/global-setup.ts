/**
 * Once per test run: starts the shared ippeveprinter that integration and e2e tests print to,
 * and hands its URI to the tests (`inject('ippeveprinterUri')`). When the peer is missing the
 * value is empty: tests then fail under CI=true and skip with a reason locally (peers.ts).
 */
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type RunningIppEvePrinter, startIppEvePrinter } from './ippeveprinter.js';
import { which } from './peers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    ippeveprinterUri: string;
    ippeveprinterSpool: string;
  }
}

let printer: RunningIppEvePrinter | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (which('ippeveprinter')) {
    printer = await startIppEvePrinter({ name: 'Shared Test Printer' });
  }
  project.provide('ippeveprinterUri', printer?.uri ?? '');
  project.provide('ippeveprinterSpool', printer?.spoolDir ?? '');
}

export async function teardown(): Promise<void> {
  await printer?.stop();
}
