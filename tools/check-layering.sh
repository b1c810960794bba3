#!/usr/bin/env bash
# Checks the layering of src/ (doc/design.md, "Layers"): a file in folder F may include the headers of its
# own folder and of folders below F in the order below, never of a folder above it.  Every quoted include is
# checked: "folder/name.h" against the order, a bare "name.h" as a header of the including file's own folder
# (where the compiler finds it first); either must name a header that exists under src/.  Angle includes
# (<mpi.h>, <armci.h>, the public headers) are outside the layering.  Every folder of src/ must appear in the
# order.  Prints each violation; exits 1 if there is one.
#
# Usage: tools/check-layering.sh [SRC_DIR]   (default: the src/ next to this script)
set -u
src="${1:-$(cd "$(dirname "$0")/../src" && pwd)}"
# The order, lowest first: doc/design.md's "Layers" list (highest first there, one "    src/<folder>  ..."
# line each), so that it is written once.
design="$(cd "$(dirname "$0")/.." && pwd)/doc/design.md"
mapfile -t order < <(awk '/^## Layers/ { on = 1; next } /^## / { on = 0 } on && /^    src\/[a-z]+ / { sub(/^    src\//, ""); print $1 }' "$design" 2>/dev/null | tac)
if [ "${#order[@]}" -lt 2 ]; then
  echo "check-layering: no layer list in $design (section \"Layers\", lines \"    src/<folder>  ...\")"
  exit 1
fi

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
includes=0
while IFS= read -r file; do
  files=$((files + 1))
  rel="${file#"$src"/}"
  folder="${rel%%/*}"
  mine="$(rank_of "$folder")"
  while IFS=: read -r line path; do
    includes=$((includes + 1))
    case "$path" in
      */*) target="${path%%/*}" resolved="$path" ;;
      *) target="$folder" resolved="$folder/$path" ;;
    esac
    if [ ! -f "$src/$resolved" ]; then
      echo "src/$rel:$line includes \"$path\", which is not a header under src/ ($resolved)"
      bad=1
      continue
    fi
    theirs="$(rank_of "$target")"
    if [ "$theirs" = -1 ]; then
      echo "src/$rel:$line includes \"$path\", a folder not in the layering order"
      bad=1
    elif [ "$theirs" -gt "$mine" ]; then
      echo "src/$rel:$line: $folder/ includes a header of $target/, which is above it (${order[*]})"
      bad=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
           sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
done < <(find "$src" -mindepth 2 -type f \( -name '*.h' -o -name '*.cc' -o -name '*.c' \) | sort)
if [ "$files" = 0 ]; then
  echo "check-layering: no sources under $src"
  exit 1
fi
if [ "$bad" = 0 ]; then echo "layering ok: $files files, $includes includes, order ${order[*]}"; fi
exit "$bad"
