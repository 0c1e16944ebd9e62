#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Documentation/events.rst's examples are examples/api/tour.c's (make check).

The page shows its examples as text, so that it reads whole where Sphinx
does not run (a repository browser, an editor); each is a part of tour.c,
which make check builds and runs.  An example is a ``.. code-block:: c``
after the comment ``.. tour.c: NAME``; its text must be the lines of tour.c
between ``/* [NAME] */`` and ``/* [/NAME] */``, tabs expanded to 8 columns
and 8 columns of indent taken away.  Every such part of tour.c is shown.

    tests/docs/examples.py            check (a Criterion-like synthesis)
    tests/docs/examples.py --write    rewrite the page's examples from tour.c
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PAGE = os.path.join(SRC, "Documentation", "events.rst")
TOUR = os.path.join(SRC, "examples", "api", "tour.c")
MARK = re.compile(r"^\.\. tour\.c: (\S+)$")


def tour_parts():
    lines = open(TOUR).read().split("\n")
    parts, name, body = {}, None, []
    for line in lines:
        m = re.search(r"/\* \[(/?)([a-z_0-9]+)\] \*/", line)
        if m and not m.group(1):
            name, body = m.group(2), []
        elif m and name == m.group(2):
            parts[name] = [dedent(b) for b in body]
            name = None
        elif name:
            body.append(line)
    return parts


def dedent(line):
    line = line.expandtabs(8)
    return line[8:] if line.startswith(" " * 8) else line.lstrip(" ")


def page_blocks(lines):
    """(NAME, first line of the code, end line) for each example of the page."""
    out = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        j = i + 1
        if j >= len(lines) or lines[j] != ".. code-block:: c":
            out.append((m.group(1), None, None))
            continue
        j += 1
        while j < len(lines) and lines[j].strip() == "":
            j += 1
        start = j
        while j < len(lines) and (lines[j].startswith("   ") or lines[j].strip() == ""):
            j += 1
        while j > start and lines[j - 1].strip() == "":
            j -= 1
        out.append((m.group(1), start, j))
    return out


def block_text(lines, start, end):
    return [line[3:] if line.strip() else "" for line in lines[start:end]]


def main():
    parts = tour_parts()
    lines = open(PAGE).read().split("\n")
    blocks = page_blocks(lines)
    if "--write" in sys.argv[1:]:
        for name, start, end in reversed(blocks):
            if start is None or name not in parts:
                sys.exit("examples.py: %s: no code block, or no such part of tour.c" % name)
            lines[start:end] = [("   " + t) if t.strip() else "" for t in parts[name]]
        open(PAGE, "w").write("\n".join(lines))
        return
    passed = failed = 0
    shown = set()
    for name, start, end in blocks:
        shown.add(name)
        if start is None:
            print("  FAIL  events.rst: '.. tour.c: %s' is not followed by '.. code-block:: c'" % name)
            failed += 1
        elif name not in parts:
            print("  FAIL  events.rst shows tour.c's [%s], which tour.c does not have" % name)
            failed += 1
        elif block_text(lines, start, end) != parts[name]:
            print("  FAIL  events.rst's [%s] (line %d) is not tour.c's: "
                  "tests/docs/examples.py --write rewrites it" % (name, start + 1))
            failed += 1
        else:
            print("  ok    events.rst's [%s] is tour.c's" % name)
            passed += 1
    for name in sorted(set(parts) - shown):
        print("  FAIL  tour.c's [%s] is not shown in events.rst" % name)
        failed += 1
    if "literalinclude" in "\n".join(lines):
        print("  FAIL  events.rst still has a literalinclude: show the text")
        failed += 1
    print("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: 0"
          % (passed + failed, passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
