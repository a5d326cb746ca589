#!/usr/bin/env bash
# Builds the Debian package of PosLab: build/poslab_VERSION_amd64.deb with the GUI, the CLI, the
# presets and lessons, a .desktop entry, an icon and AppStream metainfo. Its dependencies are
# Debian's runtime packages (LibTorch, Qt 6, QCustomPlot, OpenBLAS), so on a fresh Debian 12
#   sudo apt install ./build/poslab_*.deb
# gives `poslab` in the application menu and `poslab-cli` on the PATH, with nothing to build.
# Extra arguments are passed to CMake, as for setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${POSLAB_LIBTORCH:-debian}" != debian ]; then
  echo "package: the Debian package depends on Debian's LibTorch; run it without POSLAB_LIBTORCH" >&2
  exit 2
fi
./scripts/setup.sh "$@"
[ -x build/app/poslab ] || { echo "package: the GUI was not built (Qt 6 / QCustomPlot missing?)" >&2; exit 1; }
(cd build && cpack -G DEB -B package > cpack.log 2>&1) || { cat build/cpack.log; exit 1; }
deb=$(ls -t build/package/poslab_*.deb | head -n1)
cp "$deb" build/
rm -f build/cpack.log
echo "package: build/$(basename "$deb")"
dpkg-deb --field "build/$(basename "$deb")" Depends
