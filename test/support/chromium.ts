/**
 * Headless Chromium for page tests: Debian's chromium through playwright-core with the flags of
 * PEERS.md. `launchChromium()` starts a browser; the caller closes it.
 */
import { type Browser, chromium } from 'playwright-core';

/** Flags for a quiet, sandbox-free headless Chromium on a shared machine. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts /usr/bin/chromium headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}
