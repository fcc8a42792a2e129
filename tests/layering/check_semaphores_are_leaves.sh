#!/usr/bin/env bash
# A plugin's semaphore must not reach up into its queue: neither its
# semaphore.cpp nor any header of the plugin that its semaphore.hpp or
# semaphore.cpp includes (transitively) may include a queue or submission
# header of that plugin. The queue registers
# what it needs through a small interface instead (DESIGN.md §5).
#
#   check_semaphores_are_leaves.sh PLUGINS_DIR
set -euo pipefail
plugins_dir=$1
forbidden='^#include "(queue|submission|hand_off|completion|notification_thread)[a-z_]*\.hpp"'
status=0
for plugin in "$plugins_dir"/*/; do
  [[ -e $plugin/semaphore.hpp ]] || continue
  # The semaphore's files, then the plugin headers they pull in.
  files=("$plugin"semaphore.hpp)
  [[ -e $plugin/semaphore.cpp ]] && files+=("$plugin"semaphore.cpp)
  seen=" "
  while ((${#files[@]})); do
    file=${files[0]}
    files=("${files[@]:1}")
    [[ $seen == *" $file "* ]] && continue
    seen+="$file "
    if grep -nE "$forbidden" "$file"; then
      echo "$file: a semaphore file includes a queue or submission header" >&2
      status=1
    fi
    while read -r included; do
      [[ -e $plugin$included ]] && files+=("$plugin$included")
    done < <(sed -nE 's/^#include "([a-z_]+\.hpp)"/\1/p' "$file")
  done
  echo "${plugin%/}: $(wc -w <<<"$seen") semaphore-side files, none includes the queue"
done
exit $status
