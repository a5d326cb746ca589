#!/usr/bin/env bash
# The Debian package (scripts/package.sh builds the same with cpack): its contents, its
# dependencies (Debian runtime packages that apt can resolve here), and the programs run from the
# unpacked package's own paths, so they find their presets in <prefix>/share/poslab/resources.
# A real `apt install` onto a clean Debian 12 is in scripts/fresh-machine-test.sh.
# Usage: test_package.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v dpkg-deb >/dev/null || { echo "SKIP: dpkg-deb missing (not a Debian system)"; exit 77; }
command -v dpkg-shlibdeps >/dev/null || { echo "SKIP: dpkg-shlibdeps missing (install dpkg-dev)"; exit 77; }
[ -f "$build/CPackConfig.cmake" ] ||
  { echo "SKIP: this build links a LibTorch outside Debian's packages; the package is made from build/ (Debian's LibTorch)"; exit 77; }
[ -x "$build/app/poslab" ] || { echo "SKIP: the GUI was not built"; exit 77; }

(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/pkg/poslab_*_amd64.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || { echo "cpack wrote no poslab_VERSION_amd64.deb:"; ls "$tmp/pkg"; exit 1; }

fail() { echo "FAIL: $*"; exit 1; }
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/poslab ./usr/bin/poslab-cli \
         ./usr/share/applications/io.github.poslab.PosLab.desktop \
         ./usr/share/icons/hicolor/scalable/apps/io.github.poslab.PosLab.svg \
         ./usr/share/metainfo/io.github.poslab.PosLab.metainfo.xml \
         ./usr/share/poslab/resources/presets/jordan-kernel-lm.json \
         ./usr/share/poslab/resources/lessons/01-rope-rotation.json; do
  grep -qF -- " $f" <<<"$contents" || fail "the package lacks $f"
done
depends=$(dpkg-deb --field "$deb" Depends)
for dep in libtorch libqt6widgets6 libqcustomplot libopenblas0-pthread; do
  grep -q "$dep" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
# Every dependency is a package apt knows here (no build-only or local names).
if command -v apt-get >/dev/null; then
  apt-get install --simulate --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1 ||
    { cat "$tmp/apt.log"; fail "apt cannot resolve the package's dependencies"; }
fi
if command -v desktop-file-validate >/dev/null; then
  dpkg-deb -x "$deb" "$tmp/root"
  desktop-file-validate "$tmp/root/usr/share/applications/io.github.poslab.PosLab.desktop"
fi

# The unpacked programs, from their own paths and with no hint where the resources are.
dpkg-deb -x "$deb" "$tmp/root"
unset POSLAB_RESOURCES
"$tmp/root/usr/bin/poslab-cli" probe >"$tmp/probe.txt" || fail "poslab-cli probe failed"
grep -q "jordan-exact" "$tmp/probe.txt" || fail "probe printed no table: $(head -c 300 "$tmp/probe.txt")"
set +e
"$tmp/root/usr/bin/poslab-cli" run --preset no-such-preset 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "run --preset no-such-preset exited $rc"
grep -q "jordan-kernel-lm" "$tmp/err" || fail "the unpacked CLI did not find its presets: $(cat "$tmp/err")"
QT_QPA_PLATFORM=offscreen "$tmp/root/usr/bin/poslab" --screenshot "$tmp/shot.png" --view kernel ||
  fail "poslab --screenshot failed"
[ "$(stat -c %s "$tmp/shot.png")" -gt 20000 ] || fail "the screenshot is nearly empty"
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes), Depends: $depends"
