#!/usr/bin/env python3
"""tests/deck_mutate.py SCRATCH ARGS: expands each @deck(BASE:SECTION.KEY=VALUE)
in the bad-input matrix's ARGS into a copy of the input deck BASE with KEY of
[SECTION] set to VALUE (added when BASE lacks it), written to SCRATCH; prints
ARGS with the paths of the copies."""
import os
import re
import sys

scratch, args = sys.argv[1], sys.argv[2]
count = 0


def mutate(m):
    global count
    base, change = m.group(1).split(":", 1)
    target, value = change.split("=", 1)
    section, key = target.split(".", 1)
    lines, current, done = [], None, False
    for line in open(base).read().splitlines():
        head = re.match(r"\s*\[([^\]]+)\]", line)
        if head:
            if current == section and not done:
                lines.append("%s = %s" % (key, value))
                done = True
            current = head.group(1).strip()
        elif current == section and re.match(r"\s*%s\s*=" % re.escape(key), line):
            line, done = "%s = %s" % (key, value), True
        lines.append(line)
    if not done:
        if current != section:
            lines.append("[%s]" % section)
        lines.append("%s = %s" % (key, value))
    count += 1
    path = os.path.join(scratch, "deck-%d-%s.%s.ini" % (os.getpid(), section, key))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


print(re.sub(r"@deck\(([^)]*)\)", mutate, args))
