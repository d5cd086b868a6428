#!/usr/bin/env bash
# Removes from a copied production node_modules what never runs on the target machine:
#   scripts/prune-node-modules.sh NODE_MODULES_DIR linux-x64|linux-arm64|win32-x64
# By rules, not by package names, so it keeps working when the dependencies change:
# - for Linux, Windows programs and libraries (.exe, .dll, ...), whatever package carries them;
# - prebuilt natives for other platforms, and for musl (Debian's C library is glibc);
# - in a package with a native part (binding.gyp), everything but its JavaScript, JSON,
#   compiled .node files and licences (build sources, build leftovers, vendored C libraries);
#   compiled test fixtures (build/Release/test_*);
# - C/C++ sources and headers and gyp files anywhere (header-only build helpers included);
# - documentation, tests, examples, benchmarks, maintainer scripts and tools at a package's top
#   level, and the package's own command-line programs (package.json "bin"); markdown, shell
#   scripts, TypeScript sources and declarations, source maps, and dotfiles (VCS, linter,
#   editor, CI settings).
# Licence files always stay. Compiled Linux natives are stripped of their symbols. Empty folders go.
# Fails when a package's prebuilds/ keeps nothing for the target, naming the folder.
set -euo pipefail
modules=$1
platform=$2
[ -d "$modules" ] || { echo "prune-node-modules: $modules is not a folder" >&2; exit 2; }
case "$platform" in
  linux-x64 | linux-arm64 | win32-x64) ;;
  *) echo "prune-node-modules: platform must be linux-x64, linux-arm64 or win32-x64, got $platform" >&2; exit 2 ;;
esac

licence=(! -iname 'licen[cs]e*' ! -iname 'copying*' ! -iname 'notice*')
remove() { xargs -0 -r rm -rf; }

# The package folders: every package.json directly under a node_modules (or @scope) folder.
mapfile -d '' packages < <(find "$modules" -name package.json -regextype posix-extended \
  -regex '.*/node_modules/(@[^/]+/)?[^/]+/package\.json' -printf '%h\0')

if [ "${platform%%-*}" = linux ]; then
  find "$modules" -type f \( -iname '*.exe' -o -iname '*.dll' -o -iname '*.pdb' -o -iname '*.lib' \
    -o -iname '*.bat' -o -iname '*.cmd' -o -iname '*.ps1' -o -iname '*.vbs' \) -print0 | remove
fi

while IFS= read -r -d '' dir; do
  find "$dir" -mindepth 1 -maxdepth 1 ! -name "*$platform*" -print0 | remove
  find "$dir" -mindepth 1 -name '*musl*' -print0 | remove
  if [ -z "$(ls -A "$dir")" ]; then
    echo "prune-node-modules: $dir has no prebuilt native module for $platform" >&2
    exit 1
  fi
done < <(find "$modules" -type d -name prebuilds -print0)

for package in "${packages[@]}"; do
  [ -d "$package" ] || continue
  if [ -f "$package/binding.gyp" ]; then
    find "$package" -path "$package/node_modules" -prune -o -type f ! -name '*.js' ! -name '*.cjs' \
      ! -name '*.mjs' ! -name '*.json' ! -name '*.node' "${licence[@]}" -print0 | remove
    find "$package" -path "$package/node_modules" -prune -o -type f -path "$package/build/*" \
      ! -regex '.*/build/Release/[^/]*\.node' -print0 | remove
    find "$package" -path "$package/node_modules" -prune -o -type f -path '*/build/Release/test_*' -print0 | remove
  fi
  find "$package" -mindepth 1 -maxdepth 1 \( -name test -o -name tests -o -name __tests__ -o -name example \
    -o -name examples -o -name doc -o -name docs -o -name benchmark -o -name benchmarks -o -name bench \
    -o -name coverage -o -name integration -o -name scripts -o -name tools \) -print0 | remove
  # The package's own command-line programs (its "bin"): the agent imports packages, never runs them.
  node -e '
    const { bin } = JSON.parse(require("node:fs").readFileSync(process.argv[1] + "/package.json", "utf8"));
    const files = typeof bin === "string" ? [bin] : Object.values(bin ?? {});
    for (const file of files) process.stdout.write(require("node:path").join(process.argv[1], file) + "\0");
  ' "$package" | remove
  find "$package" -mindepth 1 -maxdepth 1 -type f \( -iname '*.html' -o -iname '*.txt' \) "${licence[@]}" -print0 |
    remove
done

find "$modules" -mindepth 1 -name '.*' -print0 | remove
# C and C++ sources and headers, gyp files: what header-only build helpers (nan, node-addon-api)
# consist of, and what native packages compile from; compiled .node files never read them.
find "$modules" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' -o -name '*.h' \
  -o -name '*.hh' -o -name '*.hpp' -o -name '*.gyp' -o -name '*.gypi' \) -print0 | remove
find "$modules" -type f \( -iname '*.md' -o -iname '*.markdown' -o -name '*.sh' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
  -o -name '*.map' -o -name 'tsconfig*.json' \) "${licence[@]}" -print0 | remove
if [ "${platform%%-*}" = linux ]; then
  find "$modules" -type f -name '*.node' -exec strip --strip-unneeded --remove-section=.comment {} +
fi
find "$modules" -mindepth 1 -type d -empty -delete
