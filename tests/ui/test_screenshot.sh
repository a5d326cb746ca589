#!/usr/bin/env bash
# `poslab --screenshot`: writes a real PNG of the kernel view; bad family / parameter exit 2
# with a message naming the problem.
set -euo pipefail
gui=${POSLAB_GUI:?set POSLAB_GUI to the poslab executable}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gui" --screenshot "$tmp/kernel.png" --view kernel --family jordan-exact
[ -f "$tmp/kernel.png" ] || { echo "no PNG written"; exit 1; }
size=$(stat -c %s "$tmp/kernel.png")
# A 1400x860 window with plots and text compresses to tens of kB; a blank one to a few.
[ "$size" -gt 20000 ] || { echo "PNG is only $size bytes"; exit 1; }
[ "$(head -c 8 "$tmp/kernel.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  { echo "not a PNG"; exit 1; }

expect_error() {  # expect_error PATTERN ARGS...: exit 2 and PATTERN on stderr
  local pattern=$1; shift
  set +e
  "$gui" "$@" 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "exit $rc for $*"; exit 1; }
  grep -q "$pattern" "$tmp/err" || { echo "stderr for $* lacks '$pattern':"; cat "$tmp/err"; exit 1; }
}
expect_error "unknown family" --screenshot "$tmp/x.png" --family no-such-family
expect_error "no parameter 'zeta'" --screenshot "$tmp/x.png" --family rope --set zeta=1
expect_error "head_dim = 15" --screenshot "$tmp/x.png" --family rope --set head_dim=15
expect_error "unknown --view" --screenshot "$tmp/x.png" --view nope
# Issue 34: a view over the work budget computes nothing and exits 2 naming the control, the
# estimate and the budget (docs/LIMITS.md); --budget must be a positive factor.
expect_error "feature norms: largest position 32768 (64 heads of head_dim 1024) needs about 2.1e+11 multiply-adds, over the budget" \
  --screenshot "$tmp/x.png" --view norms --family rope-ntk-affine --set heads=64 --set head_dim=1024
expect_error "attention map: T 128 (64 heads of head_dim 1024) needs about 1.1e+09 multiply-adds, over the budget of 5e+08" \
  --budget 0.01 --screenshot "$tmp/x.png" --view attention --family rope-ntk-affine --set heads=64 --set head_dim=1024
expect_error "budget 'abc' is not a positive factor" --budget abc --screenshot "$tmp/x.png"
expect_error "budget '0' is not a positive factor" --budget 0 --screenshot "$tmp/x.png"
[ ! -e "$tmp/x.png" ] || { echo "a failed request wrote a file"; exit 1; }
# The PNG is encoded in memory and renamed over the target: another hard link to the old file
# keeps the old content (an in-place write would change both, and a full disk would truncate it).
echo previous > "$tmp/old.png"
ln "$tmp/old.png" "$tmp/shot.png"
"$gui" --screenshot "$tmp/shot.png" --view kernel --family rope
[ "$(cat "$tmp/old.png")" = previous ] || { echo "the screenshot was written in place"; exit 1; }
[ "$(head -c 4 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = "89504e47" ] || { echo "no PNG"; exit 1; }
# Through a symlink the link stays and the file it points to is replaced; a directory is refused.
mkdir -p "$tmp/real"
ln -s real/target.png "$tmp/link.png"
"$gui" --screenshot "$tmp/link.png" --view kernel --family rope
[ -L "$tmp/link.png" ] && [ -s "$tmp/real/target.png" ] || { echo "the symlink was replaced"; exit 1; }
mkdir "$tmp/dir.png"
expect_error "dir.png: it is a directory" --screenshot "$tmp/dir.png" --family rope
"$gui" --help | grep -q -- "--screenshot" || { echo "--help lacks --screenshot"; exit 1; }
# Issue 34 part 5: without a display the window is refused in one line, exit 2 (Qt's xcb plugin
# aborted with exit 134), before Qt starts; --screenshot still renders offscreen.
no_display() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@"; }
for platform in "" xcb wayland; do
  set +e
  if [ -z "$platform" ]; then no_display timeout 30 "$gui" --quit-after 2 > "$tmp/out" 2> "$tmp/err"
  else no_display QT_QPA_PLATFORM=$platform timeout 30 "$gui" --quit-after 2 > "$tmp/out" 2> "$tmp/err"; fi
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "no display (platform '$platform'): exit $rc"; cat "$tmp/err"; exit 1; }
  grep -q "^poslab: error: no display .*--screenshot" "$tmp/err" && [ "$(wc -l < "$tmp/err")" -eq 1 ] ||
    { echo "no display (platform '$platform'): stderr is not the one line:"; cat "$tmp/err"; exit 1; }
done
no_display "$gui" --screenshot "$tmp/nodisplay.png" --view kernel --family rope > /dev/null
[ -s "$tmp/nodisplay.png" ] || { echo "--screenshot without a display wrote nothing"; exit 1; }
no_display "$gui" --help | grep -q -- "--screenshot" || { echo "--help without a display failed"; exit 1; }
echo "screenshot tests passed"
