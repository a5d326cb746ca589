#!/usr/bin/env bash
# Sets up and builds PosLab, then runs the main job: the desktop application when there is a
# display; otherwise the headless demo (the kernel-probe table, one kernel CSV per family, and a
# short training comparison, written into out/).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what it runs (and the libraries that links): with a display the application and the CLI;
# without one (a server, CI) the CLI alone, since the headless demo below needs nothing else and
# the GUI's ~70 files would only delay its first line. test.sh builds the rest in the same folder.
has_display=0
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && has_display=1
targets="poslab-cli"
((has_display)) && targets="poslab poslab-cli"
POSLAB_TARGETS="$targets" ./scripts/setup.sh "$@"
source scripts/libtorch.sh  # POSLAB_LIBTORCH=pip: the build in build-pip/

# With a display, the desktop application; without one, the headless demo below.
if ((has_display)) && [ -x "$POSLAB_BUILD_DIR/app/poslab" ]; then
  exec "$POSLAB_BUILD_DIR/app/poslab"
fi
echo "No display: running the headless demo (the desktop application needs DISPLAY)."

cli="$POSLAB_BUILD_DIR/app/poslab-cli"
mkdir -p out/kernels
"$cli" probe | tee out/probe.txt
"$cli" probe --json > out/probe.json
for family in $("$cli" families --ids); do
  "$cli" kernel --family "$family" --lags 0:1024 --csv "out/kernels/$family.csv" > /dev/null
done
echo
echo "Training Jordan-RoPE (the reference's trainable form), RoPE and the direct sum on identical"
echo "kernel-LM batches at 64 tokens, evaluated at 64 and 256 (about a minute; one head of 64, as"
echo "the jordan-kernel-lm preset):"
"$cli" compare --task kernel-lm --families jordan-stabilized-abs,rope,direct-sum --heads 1 --steps 250 \
  --eval-lengths 64,256 --eval-sequences 128 --checkpoints out/checkpoints | tee out/compare.txt
echo
echo "Wrote out/probe.txt, out/probe.json and out/kernels/<family>.csv for $(ls out/kernels | wc -l) families."
echo "and out/compare.txt with the checkpoints in out/checkpoints/."
echo "Try: $cli families | less;  $cli kernel --family jordan-exact --set gamma=0.01 --lags 0:16"
echo "     $cli response --checkpoint out/checkpoints/rope-seed0.pt --samples 4   # what it learned per lag"
