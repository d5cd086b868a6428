/**
 * Doctor checks of the devices in the file: each enabled printer answers and what it supports,
 * and each release station's card reader is present and readable by this user (for serial
 * devices: which group to join when it is not).
 */
import { constants } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import type { AgentConfig } from '../../config/agent-schema.js';
import { errorMessage } from '../../lib/errors.js';
import { silentLogger } from '../../log/logger.js';
import type { BackendRegistry } from '../../printing/backend-registry.js';
import type { PrinterDescription } from '../../printing/printer-backend.js';
import { supportedValues } from '../../printing/translate/ipp-supported.js';
import { type Check, type CheckResult, fail, ok } from './doctor-check.js';

/** One check per enabled printer. */
export function printerChecks(config: AgentConfig, registry: BackendRegistry, dataDir: string): Check[] {
  return config.printers
    .filter((p) => p.enabled)
    .map((p) => ({
      name: `printer ${p.name}`,
      async run(signal: AbortSignal): Promise<CheckResult> {
        const name = `printer ${p.name}`;
        if (p.uri.startsWith('virtual://')) return ok(name, `${p.uri} is the built-in virtual printer`);
        const backend = registry.create(p.uri, { dataDir, logger: silentLogger() });
        try {
          return ok(name, `${p.uri} answers: ${summary(await backend.describe(signal))}`);
        } catch (error) {
          return fail(
            name,
            `${p.uri} does not answer (${errorMessage(error)})`,
            'check that it is on and reachable from here (ipptool -tv URI get-printer-attributes.test), and the URI in the file',
          );
        } finally {
          await backend.close().catch(() => undefined);
        }
      },
    }));
}

/** `idle, HP LaserJet, formats pdf/pwg-raster, color, duplex, 12 media sizes`. Pure. */
export function summary(d: PrinterDescription): string {
  const formats = d.documentFormats.map((f) => f.replace(/^(application|image)\//, '')).slice(0, 6);
  const colors = supportedValues(d.attributes, 'print-color-mode').map(String);
  const sides = supportedValues(d.attributes, 'sides').map(String);
  const media = supportedValues(d.attributes, 'media').length;
  return [
    d.state + (d.stateReasons.filter((r) => r !== 'none').length ? ` (${d.stateReasons.join(', ')})` : ''),
    d.makeAndModel || d.name,
    `formats ${formats.join('/') || 'unknown'}`,
    colors.some((c) => c.includes('color')) ? 'color' : 'monochrome',
    sides.some((s) => s.startsWith('two-sided')) ? 'duplex' : 'simplex',
    `${media} media sizes`,
  ].join(', ');
}

/** One check per release station's reader. */
export function readerChecks(config: AgentConfig): Check[] {
  return config.release_stations.map((s) => ({
    name: `reader ${s.name}`,
    run: () => checkReader(`reader ${s.name}`, s.reader),
  }));
}

async function checkReader(name: string, uri: string): Promise<CheckResult> {
  if (uri.startsWith('serial:')) return checkSerial(name, decodeURIComponent(new URL(uri).pathname));
  if (uri.startsWith('hid:')) return checkHid(name, uri);
  if (uri.startsWith('socket:'))
    return ok(name, `${uri} is a network reader: swipes arrive there (printrelay swipe)`);
  return ok(name, `${uri} reads the agent's terminal: nothing to check`);
}

/** A serial device: present, a character device, readable and writable by this user. */
export async function checkSerial(name: string, path: string): Promise<CheckResult> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    return fail(
      name,
      `${path} is not present`,
      'plug the reader in and use its stable name from ls -l /dev/serial/by-id/',
    );
  }
  if (!info.isCharacterDevice())
    return fail(name, `${path} is not a serial (character) device`, 'point the reader URI at the tty device');
  const group = (await groupName(info.gid)) ?? String(info.gid);
  const mode = (info.mode & 0o777).toString(8);
  try {
    const handle = await open(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    await handle.close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    const fix =
      code === 'EACCES' || code === 'EPERM'
        ? `add the agent's user to the device's group: usermod -aG ${group} printrelay (then restart the agent)`
        : 'stop whatever holds the port (another program or agent), then check again';
    return fail(
      name,
      `${path} cannot be opened by this user (${code}; owner group ${group}, mode ${mode})`,
      fix,
    );
  }
  return ok(name, `${path} is present and readable (group ${group}, mode ${mode})`);
}

async function checkHid(name: string, uri: string): Promise<CheckResult> {
  const match = /^hid:\/\/([0-9a-f]{4}):([0-9a-f]{4})/i.exec(uri);
  if (!match) return fail(name, `${uri} has no USB ids`, 'write it as hid://VVVV:PPPP (lsusb shows them)');
  const [vendorId, productId] = [Number.parseInt(match[1] ?? '', 16), Number.parseInt(match[2] ?? '', 16)];
  const { default: HID } = await import('node-hid');
  const found = (await HID.devicesAsync()).filter(
    (d) => d.vendorId === vendorId && d.productId === productId,
  );
  if (found.length === 0) {
    return fail(
      name,
      `no USB HID device ${match[1]}:${match[2]} is present`,
      'plug the reader in (lsusb lists it); on Linux the agent user needs the hidraw device (group plugdev, a udev rule)',
    );
  }
  return ok(
    name,
    `${found[0]?.product ?? 'device'} ${match[1]}:${match[2]} is present at ${found[0]?.path ?? '?'}`,
  );
}

async function groupName(gid: number): Promise<string | undefined> {
  try {
    const line = (await readFile('/etc/group', 'utf8'))
      .split('\n')
      .find((l) => l.split(':')[2] === String(gid));
    return line?.split(':')[0];
  } catch {
    return undefined;
  }
}
