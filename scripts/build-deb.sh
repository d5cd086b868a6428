#!/usr/bin/env bash
# Builds the Debian package of the PrintRelay agent with dpkg-deb:
#   scripts/build-deb.sh [--arch amd64|arm64] [--version X.Y.Z] [--out DIR] [--fast]
# Run it from a checkout whose node_modules were installed (`npm ci`) on a machine of the
# target architecture: the native modules compiled at install time (better-sqlite3-node20,
# unix-dgram) are copied as they are, so an arm64 package is built on an arm64 machine. The
# script checks every compiled module's ELF machine and refuses a mismatch, naming the file.
# Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

arch=$(dpkg --print-architecture)
version=$(node -p "require('./package.json').version")
out="$root/dist-deb"
compress=(-Zxz)
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --fast) compress=(-Zgzip -z1); shift ;;
    *) echo "build-deb: unknown option $1 (use --arch, --version, --out, --fast)" >&2; exit 2 ;;
  esac
done

case "$arch" in
  amd64) elf_machine=62; node_arch=x64 ;;
  arm64) elf_machine=183; node_arch=arm64 ;;
  *) echo "build-deb: --arch must be amd64 or arm64, got $arch" >&2; exit 2 ;;
esac
[ -d node_modules ] || { echo "build-deb: no node_modules: run npm ci first" >&2; exit 1; }

# The production dependency tree, as paths relative to the checkout. The TypeScript runner
# (tsx, esbuild) only serves checkouts running src/ (the package runs the compiled dist/), and
# node-windows only carries WinSW for Windows.
mapfile -t packages < <(npm ls --omit=dev --all --parseable 2>/dev/null | sed "s#^$root/##" |
  grep '^node_modules/' | grep -Ev '^node_modules/(tsx|esbuild|@esbuild/[^/]+|node-windows)$' | sort -u)

# Natives compiled here must be of the target architecture.
for module in $(printf '%s\n' "${packages[@]}" | sed 's#$#/build/Release#' | xargs -r ls -d 2>/dev/null); do
  for file in "$module"/*.node; do
    machine=$(od -An -tu2 -j18 -N2 "$file" | tr -d ' ')
    if [ "$machine" != "$elf_machine" ]; then
      echo "build-deb: $file is compiled for ELF machine $machine, not for $arch ($elf_machine)." >&2
      echo "build-deb: native modules are compiled by npm ci for the machine it runs on: build the package for $arch on an $arch machine (or container), after npm ci there." >&2
      exit 1
    fi
  done
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
app="$stage/opt/printrelay"
mkdir -p "$app" "$stage/usr/bin" "$stage/lib/systemd/system" "$stage/etc/printrelay" "$stage/DEBIAN"

npx tsc -p tsconfig.build.json --outDir "$app/dist"
cp -a bin drivers config docs package.json package-lock.json README.md "$app/"
tar -cf - "${packages[@]}" | tar -C "$app" -xf -
# Build leftovers, and prebuilt natives of other platforms, are not needed at run time.
find "$app/node_modules" -type d \( -name obj.target -o -name .deps \) -prune -exec rm -rf {} +
for dir in "$app"/node_modules/*/prebuilds "$app"/node_modules/@*/*/prebuilds; do
  [ -d "$dir" ] || continue
  find "$dir" -mindepth 1 -maxdepth 1 -type d ! -name "*linux-$node_arch*" -exec rm -rf {} +
  if [ -z "$(ls -A "$dir")" ]; then
    echo "build-deb: $dir has no prebuilt native module for linux-$node_arch" >&2
    exit 1
  fi
done

ln -s /opt/printrelay/bin/printrelay.js "$stage/usr/bin/printrelay"
install -m 0644 packaging/systemd/printrelay-agent.service "$stage/lib/systemd/system/"
install -m 0640 packaging/debian/agent.yaml "$stage/etc/printrelay/agent.yaml"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
echo /etc/printrelay/agent.yaml >"$stage/DEBIAN/conffiles"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: printrelay
Version: $version
Architecture: $arch
Maintainer: PrintRelay maintainers <printrelay@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: nodejs (>= 20.19), passwd
Recommends: cups-client
Section: net
Priority: optional
Homepage: file:///opt/printrelay/README.md
Description: print connector and release-station agent for a cloud print service
 PrintRelay registers local printers with a cloud print service, prints the jobs the cloud
 sends, and releases held jobs when a user swipes a card at a release station. This package
 installs the agent under /opt/printrelay, the printrelay command, the systemd unit
 printrelay-agent.service and the system user printrelay.
CONTROL

mkdir -p "$out"
deb="$out/printrelay_${version}_${arch}.deb"
dpkg-deb --root-owner-group "${compress[@]}" --build "$stage" "$deb" >/dev/null
echo "$deb"
