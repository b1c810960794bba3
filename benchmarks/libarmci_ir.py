#!/usr/bin/env python3
# libarmci_ir.py ANNOTATION [EXCLUDE_REGEX]: the instructions libarmci executed, from the output of
# `callgrind_annotate --inclusive=no --threshold=100 callgrind.out` (benchmarks/README.md, contig_path.c).
# Counts every entry of the function table that is libarmci's: an [object] naming libarmci, or no [object]
# (code inlined from another source file: callgrind_annotate prints none there) and a function of armcix::,
# ARMCI_x or PARMCI_x.  EXCLUDE_REGEX leaves out functions whose count depends on timing (loops that spin
# for a peer), e.g. 'wait_yielding|handle_test|completed_earlier|lookup|ARMCI_Test|require_initialized'.
import re
import sys

exclude = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
total = 0
for line in open(sys.argv[1]):
    if 'Auto-annotated source' in line:
        break
    m = re.match(r'^\s*([\d,]+) \(\s*[\d.]+%\)  (.*)$', line)
    if not m or 'PROGRAM TOTALS' in line:
        continue
    entry = m.group(2)
    obj = re.search(r'\[([^\]]*)\]$', entry)
    fn = entry.split(':', 1)[1] if ':' in entry else entry
    mine = ('libarmci' in obj.group(1)) if obj else re.match(r'(\w+ )?(armcix::|P?ARMCI)', fn) is not None
    if mine and not (exclude and exclude.search(fn)):
        total += int(m.group(1).replace(',', ''))
print(total)
