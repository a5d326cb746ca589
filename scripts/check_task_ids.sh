#!/usr/bin/env bash
# The task seam (core/tasks/task_info.h): no task id string is compared outside the file that
# declares the task. Whatever the UI, the CLI or the trainer needs to know about a task is a field
# of its TaskInfo. Fails listing each comparison (`== "kernel-lm"`, `"byte-lm" !=`, ...) in core/,
# ui/ and app/ that is not in the task's own file.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
declared=0
for file in core/tasks/*.cpp; do
  id=$(sed -n 's/^ *i\.id = "\([^"]*\)";.*/\1/p' "$file")
  [ -n "$id" ] || continue
  declared=$((declared + 1))
  quoted="\"${id}\""
  if hits=$(git grep -n -E "([=!]=|\.compare\() *${quoted}|${quoted} *[=!]=" -- core ui app \
      ":!${file}"); then
    echo "task id ${quoted} compared outside ${file}:"
    echo "$hits"
    status=1
  fi
done
if [ "$declared" -lt 1 ]; then
  echo "no task declarations (i.id = \"...\") found in core/tasks/*.cpp"
  exit 1
fi
[ "$status" -eq 0 ] && echo "task ids: ${declared} tasks, none compared outside its own file"
exit "$status"
