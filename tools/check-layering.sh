#!/usr/bin/env bash
# Checks the layering of src/ (doc/design.md, "Layering"): a file in folder F may include the headers of
# its own folder and of folders below F in the order below, never of a folder above it.  Every folder of
# src/ must appear in the order.  Prints each violation; exits 1 if there is one.
#
# Usage: tools/check-layering.sh [SRC_DIR]   (default: the src/ next to this script)
set -u
src="${1:-$(cd "$(dirname "$0")/../src" && pwd)}"
# Lowest first.
order=(runtime acc profile groups gmr shm nb transfer sync msg api)

rank_of() {
  local i
  for i in "${!order[@]}"; do
    if [ "${order[$i]}" = "$1" ]; then echo "$i"; return; fi
  done
  echo -1
}

bad=0
for dir in "$src"/*/; do
  folder="$(basename "$dir")"
  if [ "$(rank_of "$folder")" = -1 ]; then
    echo "src/$folder/: folder is not in the layering order (tools/check-layering.sh, doc/design.md)"
    bad=1
  fi
done
files=0
while IFS= read -r file; do
  files=$((files + 1))
  rel="${file#"$src"/}"
  folder="${rel%%/*}"
  mine="$(rank_of "$folder")"
  while IFS=: read -r line target; do
    theirs="$(rank_of "$target")"
    if [ "$theirs" = -1 ]; then
      echo "src/$rel:$line includes \"$target/...\", a folder not in the layering order"
      bad=1
    elif [ "$theirs" -gt "$mine" ]; then
      echo "src/$rel:$line: $folder/ includes a header of $target/, which is above it (${order[*]})"
      bad=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]*/' "$file" |
           sed -E 's/^([0-9]+):[^"]*"([^"/]*)\/.*/\1:\2/')
done < <(find "$src" -mindepth 2 -type f \( -name '*.h' -o -name '*.cc' -o -name '*.c' \) | sort)
if [ "$files" = 0 ]; then
  echo "check-layering: no sources under $src"
  exit 1
fi
if [ "$bad" = 0 ]; then echo "layering ok: $files files, order ${order[*]}"; fi
exit "$bad"
