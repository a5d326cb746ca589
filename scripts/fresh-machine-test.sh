#!/usr/bin/env bash
# Runs the README's two commands on a clean Debian 12 root, the way a fresh machine would:
#   1. builds a Debian 12 (bookworm) root with debootstrap, from Debian's packages only;
#   2. copies a clean clone of this repository's HEAD into it (committed work only, as CI sees it);
#   3. runs ./scripts/run.sh (set up + the main job, headless) and then ./scripts/test.sh there;
#   4. builds the Debian package there, installs it with apt, and runs the installed programs.
# A package the project needs but setup.sh does not install fails here, even when the
# development machine has it. Needs root (debootstrap, chroot, mounts) and about 6 GB of disk.
#
#   sudo ./scripts/fresh-machine-test.sh            # logs in /var/tmp/poslab-fresh/logs/
#
# Environment:
#   POSLAB_FRESH_DIR     work folder (default /var/tmp/poslab-fresh): the cached base tarball,
#                        the root (rebuilt from the tarball on every run) and the logs.
#   POSLAB_FRESH_MIRROR  Debian mirror (default: the one in this machine's apt sources).
#   POSLAB_FRESH_CCACHE  a folder bound as the root's compiler cache, to make a rerun faster. It
#                        changes no outcome: a missing header or library still fails the build.
#   POSLAB_FRESH_STEPS   which of run.sh, test.sh and the package to run (default "run test
#                        package"); "test" times test.sh alone, as a user who only tests it runs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${POSLAB_FRESH_DIR:-/var/tmp/poslab-fresh}
root="$work/root"
logs="$work/logs"
suite=bookworm

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-machine-test: needs root (debootstrap, chroot and mounts); run it with sudo" >&2
  exit 2
fi
steps=" ${POSLAB_FRESH_STEPS:-run test package} "
for step in $steps; do
  [[ "$step" =~ ^(run|test|package)$ ]] ||
    { echo "fresh-machine-test: POSLAB_FRESH_STEPS: '$step' is not run, test or package" >&2; exit 2; }
done
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi

mirror=${POSLAB_FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
    grep -v security | head -n1 || true)
  [ -n "$mirror" ] || mirror=$(awk '/^deb / && !/security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

unmount_all() {
  for m in dev/pts dev proc sys root/.cache/ccache; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
  done
  return 0
}
trap unmount_all EXIT

mkdir -p "$work" "$logs"
tarball="$work/$suite-base.tgz"
if [ ! -s "$tarball" ]; then
  echo "fresh-machine-test: downloading a $suite base system from $mirror (once; cached in $tarball)"
  debootstrap --make-tarball="$tarball.part" "$suite" "$work/tarball-tmp" "$mirror" \
    >"$logs/debootstrap-download.log" 2>&1 || { tail -n 20 "$logs/debootstrap-download.log"; exit 1; }
  mv "$tarball.part" "$tarball"
  rm -rf "$work/tarball-tmp"
fi

unmount_all
rm -rf "$root"
echo "fresh-machine-test: installing a clean $suite root in $root"
debootstrap --unpack-tarball="$tarball" "$suite" "$root" "$mirror" >"$logs/debootstrap.log" 2>&1 ||
  { tail -n 20 "$logs/debootstrap.log"; exit 1; }

# The same Debian archive as this machine (main, updates and security), nothing else.
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
  rm -f "$root/etc/apt/sources.list"
  for f in /etc/apt/sources.list.d/*.sources; do
    grep -q 'debian' "$f" && cp "$f" "$root/etc/apt/sources.list.d/"
  done
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
if [ -n "${POSLAB_FRESH_CCACHE:-}" ]; then
  mkdir -p "$POSLAB_FRESH_CCACHE" "$root/root/.cache/ccache"
  mount --bind "$POSLAB_FRESH_CCACHE" "$root/root/.cache/ccache"
fi

commit=$(git -C "$repo" rev-parse --short HEAD)
git clone -q --no-hardlinks "$repo" "$root/root/poslab"
echo "fresh-machine-test: testing commit $commit (uncommitted changes are not included)"

in_root() {  # in_root LOG COMMAND: runs COMMAND in the clean root as a login shell would
  local log=$1
  shift
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 CCACHE_BASEDIR=/root/poslab /bin/bash -c "cd /root/poslab && $*" >"$logs/$log" 2>&1
}

run_step() {  # run_step NAME LOG TAIL_LINES: runs ./scripts/NAME.sh in the root, timed, and says how it ended
  local name=$1 log=$2 tail_lines=$3 start
  start=$(date +%s)
  echo "fresh-machine-test: ./scripts/$name.sh (log: $logs/$log)"
  if in_root "$log" "./scripts/$name.sh"; then
    echo "fresh-machine-test: $name.sh passed ($(($(date +%s) - start)) s)"
    return 0
  fi
  echo "fresh-machine-test: $name.sh FAILED; the end of its log:"
  tail -n "$tail_lines" "$logs/$log"
  return 1
}

status=0
if [[ "$steps" == *" run "* ]]; then
  run_step run run.log 30 || status=1
fi
if [[ "$steps" == *" test "* ]]; then
  if run_step test test.log 40; then
    grep -E 'tests passed|tests failed' "$logs/test.log" | tail -n 1
  else
    status=1
  fi
fi
if [ "$status" -eq 0 ] && [[ "$steps" == *" package "* ]]; then
  echo "fresh-machine-test: package.sh, apt install of the .deb, the installed programs (log: $logs/package.log)"
  if in_root package.log './scripts/package.sh && apt-get install -y -qq ./build/poslab_*_amd64.deb &&
      cd / && command -v poslab poslab-cli && poslab-cli probe >/tmp/probe.txt &&
      grep -q jordan-exact /tmp/probe.txt &&
      QT_QPA_PLATFORM=offscreen poslab --screenshot /tmp/installed.png --view kernel &&
      test -s /tmp/installed.png && test -f /usr/share/applications/io.github.poslab.PosLab.desktop'; then
    echo "fresh-machine-test: the installed package works"
  else
    echo "fresh-machine-test: the package FAILED; the end of its log:"
    tail -n 30 "$logs/package.log"
    status=1
  fi
fi
[ "$status" -eq 0 ] && echo "fresh-machine-test: commit $commit passes on a clean $suite root (steps:$steps)"
exit "$status"
