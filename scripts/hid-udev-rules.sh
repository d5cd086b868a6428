#!/usr/bin/env bash
# Writes the udev rules of the shipped USB HID card readers to standard output:
#   scripts/hid-udev-rules.sh drivers/cardreaders
# One line per USB id of every profile whose connection is hid-keyboard or hid-raw: the
# reader's /dev/hidraw* node becomes readable by the group printrelay (the agent's), which
# `hid://vendor:product` readers need (docs/card-readers.md). The Debian package installs them
# as /lib/udev/rules.d/60-printrelay-card-readers.rules.
set -euo pipefail
node - "$1" <<'SCRIPT'
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const dir = process.argv[2];
const lines = [
  '# USB HID card readers of the profiles shipped with PrintRelay (drivers/cardreaders/):',
  '# the agent (group printrelay) reads them through /dev/hidraw*. A reader not listed here',
  '# needs a rule of its own in /etc/udev/rules.d/ (docs/card-readers.md).',
];
for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  if (!String(profile.connection).startsWith('hid-')) continue;
  for (const { vendorId, productId } of profile.usb ?? []) {
    if (!/^[0-9a-f]{4}$/.test(vendorId) || !/^[0-9a-f]{4}$/.test(productId))
      throw new Error(`${name}: usb ids must be 4 lower-case hex digits, got ${vendorId}:${productId}`);
    lines.push(`# ${profile.name}`);
    lines.push(`SUBSYSTEM=="hidraw", ATTRS{idVendor}=="${vendorId}", ATTRS{idProduct}=="${productId}", MODE="0660", GROUP="printrelay"`);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
SCRIPT
