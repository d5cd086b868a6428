#!/usr/bin/env bash
# Writes the Debian package's copyright file to standard output:
#   scripts/deb-copyright.sh NODE_MODULES_DIR
# PrintRelay's own terms (packaging/debian/copyright.head), then every bundled npm package with
# its version, the licence its package.json declares and where its licence text is installed.
set -euo pipefail
modules=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
years=$(git log --format=%cd --date=format:%Y 2>/dev/null | sort -u | sed -n '1p;$p' | paste -sd- || true)
sed "s/@YEARS@/${years:-$(date +%Y)}/" packaging/debian/copyright.head
echo
echo "Bundled npm packages (in /usr/lib/printrelay/node_modules), each under its own licence;"
echo "the texts of the licences Debian ships (Apache-2.0, BSD, GPL, LGPL, MPL-2.0, ...) are also"
echo "in /usr/share/common-licenses/."
echo
find "$modules" -name package.json -regextype posix-extended \
  -regex '.*/node_modules/(@[^/]+/)?[^/]+/package\.json' -print0 | sort -z |
  MODULES=$modules xargs -0 node -e '
    const { readFileSync, readdirSync } = require("node:fs");
    const { dirname, join, relative } = require("node:path");
    for (const file of process.argv.slice(1)) {
      const p = JSON.parse(readFileSync(file, "utf8"));
      if (!p.name || !p.version) continue;
      const dir = dirname(file);
      const text = readdirSync(dir).find((n) => /^(licen[cs]e|copying|notice)/i.test(n));
      const licence = typeof p.license === "string" ? p.license : (p.license?.type ?? "see its files");
      const where = text ? join("/usr/lib/printrelay", relative(join(process.env.MODULES, ".."), join(dir, text))) : "no licence file shipped";
      console.log(` ${p.name} ${p.version}: ${licence} (${where})`);
    }'
