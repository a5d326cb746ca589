#!/usr/bin/env bash
# Checks every tracked C++ file against the checked-in .clang-format (clang-format 14, Debian 12's).
# Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format > /dev/null || { echo "clang-format is not installed (scripts/setup.sh installs it)"; exit 1; }
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run -Werror
echo "format: $(git ls-files '*.cpp' '*.h' | wc -l) files match .clang-format"
