#!/usr/bin/env bash
# Builds the Debian package of the PrintRelay agent with dpkg-deb:
#   scripts/build-deb.sh [--arch amd64|arm64] [--version X.Y.Z] [--out DIR] [--fast]
#                        [--maintainer "Name <address>"] [--homepage https://...]
# The maintainer defaults to DEBFULLNAME and DEBEMAIL (Debian's usual variables) when both are
# set, else to the author of the checkout's last commit; the package has a Homepage field only
# when --homepage gives one.
# Run it from a checkout whose node_modules were installed (`npm ci`) on a machine of the
# target architecture: the native modules compiled at install time (better-sqlite3-node20,
# unix-dgram) are copied as they are, so an arm64 package is built on an arm64 machine. The
# script checks every compiled module's ELF machine and refuses a mismatch, naming the file.
# Needs dpkg-dev (dpkg-shlibdeps computes the libraries the natives need) and binutils (strip).
# The package passes lintian (test/integration/debian-package.test.ts runs it). A tag that must
# be overridden goes in packaging/debian/lintian-overrides with a comment saying why (the test
# refuses an override without one); the package needs none today.
# Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

arch=$(dpkg --print-architecture)
version=$(node -p "require('./package.json').version")
out="$root/dist-deb"
compress=(-Zxz)
maintainer=""
homepage=""
if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then maintainer="$DEBFULLNAME <$DEBEMAIL>"; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --fast) compress=(-Zgzip -z1); shift ;;
    --maintainer) maintainer=$2; shift 2 ;;
    --homepage) homepage=$2; shift 2 ;;
    *) echo "build-deb: unknown option $1 (use --arch, --version, --out, --fast, --maintainer, --homepage)" >&2; exit 2 ;;
  esac
done
[ -n "$maintainer" ] || maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null || true)
if ! [[ "$maintainer" =~ ^[^\<\>]+\ \<[^@\ ]+@[^@\ ]+\.[^@\ ]+\>$ ]]; then
  echo "build-deb: --maintainer must be \"Name <address@domain>\", got \"$maintainer\"" >&2
  exit 2
fi
if [ -n "$homepage" ] && ! [[ "$homepage" =~ ^https?://[^/[:space:]]+ ]]; then
  echo "build-deb: --homepage must be an http(s) URL, got \"$homepage\"" >&2
  exit 2
fi

case "$arch" in
  amd64) elf_machine=62; node_arch=x64 ;;
  arm64) elf_machine=183; node_arch=arm64 ;;
  *) echo "build-deb: --arch must be amd64 or arm64, got $arch" >&2; exit 2 ;;
esac
[ -d node_modules ] || { echo "build-deb: no node_modules: run npm ci first" >&2; exit 1; }
for tool in dpkg-shlibdeps strip; do
  command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing: apt-get install dpkg-dev binutils" >&2; exit 1; }
done

# The production dependency tree (what `npm ci --omit=dev` installs), as paths relative to the
# checkout. Two kinds of packages never run from the Debian package: the TypeScript runner
# (tsx and its esbuild) serves checkouts that run src/, while the package runs the compiled
# dist/; node-windows only carries WinSW, the host of the Windows service.
mapfile -t packages < <(npm ls --omit=dev --all --parseable 2>/dev/null | sed "s#^$root/##" |
  grep '^node_modules/' | grep -Ev '(^|/)node_modules/(tsx|esbuild|@esbuild/[^/]+|node-windows)$' | sort -u)

# Natives compiled here must be of the target architecture.
for module in $(printf '%s\n' "${packages[@]}" | sed 's#$#/build/Release#' | xargs -r ls -d 2>/dev/null); do
  for file in "$module"/*.node; do
    [ -e "$file" ] || continue # a build/ folder without a compiled module (better-sqlite3 13 loads a prebuild)
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
app="$stage/usr/lib/printrelay"
doc="$stage/usr/share/doc/printrelay"
mkdir -p "$app" "$doc/examples" "$stage/usr/bin" "$stage/usr/share/man/man1" "$stage/lib/systemd/system" \
  "$stage/lib/udev/rules.d" "$stage/etc/printrelay" "$stage/etc/default" "$stage/DEBIAN"

# The application: the bundle (scripts/build-bundle.ts; no source maps, no metafile), the data it
# reads, package.json (version and the package root the code finds its files from).
npx tsx scripts/build-bundle.ts --outdir "$app/dist" --no-sourcemap --no-meta >/dev/null
cp -a bin drivers package.json "$app/"
tar -cf - "${packages[@]}" | tar -C "$app" -xf -
scripts/prune-node-modules.sh "$app/node_modules" "linux-$node_arch"

# Documentation, examples, manual page, licences of what is bundled, changelog.
cp -a README.md docs/*.md "$doc/"
cp -a config/*.example.yaml config/*.schema.json "$doc/examples/"
gzip -9n <packaging/debian/printrelay.1 >"$stage/usr/share/man/man1/printrelay.1.gz"
scripts/deb-copyright.sh "$app/node_modules" >"$doc/copyright"
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" -e "s/@DATE@/$(date -uR -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")/" \
  packaging/debian/changelog | gzip -9n >"$doc/changelog.gz"

ln -s ../lib/printrelay/bin/printrelay.js "$stage/usr/bin/printrelay"
install -m 0644 packaging/systemd/printrelay-agent.service "$stage/lib/systemd/system/"
scripts/hid-udev-rules.sh drivers/cardreaders >"$stage/lib/udev/rules.d/60-printrelay-card-readers.rules"
# postinst makes agent.yaml 0640 root:printrelay once the group exists.
install -m 0644 packaging/debian/agent.yaml "$stage/etc/printrelay/agent.yaml"
install -m 0644 packaging/debian/default "$stage/etc/default/printrelay"
if [ -f packaging/debian/lintian-overrides ]; then
  install -D -m 0644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/printrelay"
fi

# Everything is root's and world-readable; only what runs is executable.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod 0644 {} +
chmod 0755 "$app/bin/printrelay.js"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
printf '%s\n' /etc/printrelay/agent.yaml /etc/default/printrelay >"$stage/DEBIAN/conffiles"

# The libraries the natives link against, as package dependencies (dpkg-shlibdeps reads a
# debian/control, so it runs in a scratch source tree).
shlibs=$(mktemp -d)
trap 'rm -rf "$stage" "$shlibs"' EXIT
mkdir "$shlibs/debian"
printf 'Source: printrelay\n\nPackage: printrelay\nArchitecture: any\n' >"$shlibs/debian/control"
mapfile -t natives < <(find "$app" -name '*.node' -type f)
libs=$(cd "$shlibs" && dpkg-shlibdeps -O -e"${natives[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$libs" ] || { echo "build-deb: dpkg-shlibdeps found no libraries for ${natives[*]}" >&2; exit 1; }

(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$libs/" -e "s|@MAINTAINER@|$maintainer|" \
  -e "s|@HOMEPAGE@|${homepage:+Homepage: $homepage\\n}|" \
  -e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$stage" | cut -f1)/" packaging/debian/control >"$stage/DEBIAN/control"

mkdir -p "$out"
deb="$out/printrelay_${version}_${arch}.deb"
dpkg-deb --root-owner-group "${compress[@]}" --build "$stage" "$deb" >/dev/null
echo "$deb"
