/**
 * The print side of integration tests against the emulator: a text document submitted as an app
 * does (upload, then print), and a virtual printer registered by a first start of the test's agent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../../src/agent/agent.js';
import type { SfapiClient, UploadProgress } from '../../src/client/sfapi-client.js';
import { expect } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { firstCloudId } from './emulator-agent-config.js';

/** Writes `text` to a file under `dir`, uploads it and prints it on `printerId`; returns the job id. */
export async function submitText(
  sfapi: SfapiClient,
  dir: string,
  printerId: string,
  text: string,
  onProgress: UploadProgress = () => {},
): Promise<string> {
  const file = join(dir, `doc-${Date.now()}-${Math.random()}.txt`);
  writeFileSync(file, text);
  const upload = await sfapi.prepareUpload();
  await sfapi.upload(upload.sasUri, file, onProgress);
  const { jobid } = await sfapi.print({
    fileid: upload.fileid,
    type: 'txt',
    printerid: printerId,
    alias: 'a.txt',
  });
  return jobid;
}

/**
 * Starts a virtual printer `name` printing under `dir/printed`, starts the agent `agentWith` its
 * URI once to register it, expects a cloud id, and returns the printer (the caller stops it), its
 * URI and its cloud id.
 */
export async function registeredVirtualPrinter(
  dir: string,
  name: string,
  agentWith: (uri: string) => Agent,
): Promise<{ printer: VirtualPrinter; uri: string; cloudId: string }> {
  const printer = new VirtualPrinter({ name, outputDir: join(dir, 'printed'), logger: silentLogger() });
  const { uri } = await printer.start();
  try {
    const cloudId = await firstCloudId(agentWith(uri), name);
    expect(cloudId).toBeTruthy();
    return { printer, uri, cloudId: cloudId as string };
  } catch (error) {
    await printer.stop();
    throw error;
  }
}
