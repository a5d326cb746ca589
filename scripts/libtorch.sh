#!/usr/bin/env bash
# Which LibTorch setup.sh, test.sh and run.sh build against, and in which folder (sourced by them).
#   POSLAB_LIBTORCH unset or "debian": Debian's LibTorch 1.13 (libtorch-dev), in build/.
#   POSLAB_LIBTORCH=pip: LibTorch 2.x from PyPI's torch wheel, installed once into the ignored
#     virtual environment .venv-pip/ (from /usr/bin/python3), in build-pip/. A CUDA wheel (PyPI's
#     default) also needs the CUDA toolkit's nvcc (CUDA_HOME, else /usr/local/cuda): Caffe2's CMake
#     package asks for it, and PosLab's CUDA kernels are built with it.
#   POSLAB_TORCH_PIP_ARGS: extra arguments of that `pip install`, e.g.
#     "torch==2.9.1 --index-url https://download.pytorch.org/whl/cpu" for a CPU-only wheel.
# Sets POSLAB_BUILD_DIR and the array POSLAB_CMAKE_ARGS; poslab_prepare_libtorch installs what
# the choice needs.
case "${POSLAB_LIBTORCH:-debian}" in
  debian)
    POSLAB_BUILD_DIR=build
    POSLAB_CMAKE_ARGS=()
    ;;
  pip)
    POSLAB_BUILD_DIR=build-pip
    POSLAB_CMAKE_ARGS=()
    ;;
  *)
    echo "POSLAB_LIBTORCH=${POSLAB_LIBTORCH}: use debian (the default) or pip" >&2
    exit 2
    ;;
esac
POSLAB_VENV="$PWD/.venv-pip"

poslab_prepare_libtorch() {
  [ "${POSLAB_LIBTORCH:-debian}" = pip ] || return 0
  local py="$POSLAB_VENV/bin/python"
  if [ ! -x "$py" ]; then
    echo "setup: creating $POSLAB_VENV (from /usr/bin/python3)"
    /usr/bin/python3 -m venv "$POSLAB_VENV"
  fi
  if ! "$py" -W ignore -c "import torch" 2> /dev/null; then
    # shellcheck disable=SC2086  # POSLAB_TORCH_PIP_ARGS is a list of words on purpose
    echo "setup: pip install ${POSLAB_TORCH_PIP_ARGS:-torch} into $POSLAB_VENV (a large download, once)"
    "$py" -m pip install --quiet ${POSLAB_TORCH_PIP_ARGS:-torch}
  fi
  local prefix torch_dir cuda abi
  prefix=$("$py" -W ignore -c "import torch; print(torch.utils.cmake_prefix_path)")
  torch_dir=$("$py" -W ignore -c "import os, torch; print(os.path.dirname(torch.__file__))")
  cuda=$("$py" -W ignore -c "import torch; print(torch.version.cuda or '')")
  abi=$("$py" -W ignore -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
  echo "setup: LibTorch $("$py" -W ignore -c "import torch; print(torch.__version__)") from $torch_dir" \
    "(CUDA ${cuda:-none}, cxx11 ABI $abi)"
  if [ "$abi" != 1 ]; then
    # Debian's Qt, QCustomPlot, gtest and CLI11 are built with the cxx11 ABI: they cannot meet
    # a pre-cxx11 LibTorch in one program.
    echo "setup: this torch wheel uses the pre-cxx11 ABI; PosLab needs a cxx11-ABI LibTorch (torch >= 2.7 from PyPI)" >&2
    exit 1
  fi
  # The wheel's folder first: TorchConfig.cmake looks for libtorch.so under <prefix>/lib, and
  # without it finds Debian's /usr/lib/x86_64-linux-gnu/libtorch.so (1.13) there first.
  POSLAB_CMAKE_ARGS=(-DCMAKE_PREFIX_PATH="$torch_dir;$prefix" -DPOSLAB_PRECOMPILE_TORCH=ON)
  if [ -n "$cuda" ]; then
    local cuda_home="${CUDA_HOME:-/usr/local/cuda}"
    if [ ! -x "$cuda_home/bin/nvcc" ]; then
      echo "setup: this torch wheel is a CUDA $cuda build and needs the CUDA toolkit (nvcc) to build against;" \
        "none at $cuda_home (set CUDA_HOME), or install a CPU wheel:" \
        "POSLAB_TORCH_PIP_ARGS=\"torch --index-url https://download.pytorch.org/whl/cpu\"" >&2
      exit 1
    fi
    # Fixed architectures (Turing, Ampere, Hopper + PTX for newer GPUs): Caffe2's CMake would
    # otherwise ask the GPU, and there may be none.
    export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-7.5;8.0;9.0+PTX}"
    POSLAB_CMAKE_ARGS+=(-DCUDAToolkit_ROOT="$cuda_home" -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc")
  fi
}
