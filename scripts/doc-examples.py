#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The code shown in the documentation is the text of compiled examples.

In a Documentation/*.rst page, a code block right after the comment

    .. code from examples/api/tour.c [start]

shows the lines of that file between "/* [start] */" and "/* [/start] */",
tabs expanded to 8 columns and their common indentation removed.  The text
is in the page itself (GitHub shows it; Sphinx's literalinclude would not
be), and this script keeps it the same as the source, which make check
compiles and runs:

    scripts/doc-examples.py [--update] [PAGE.rst ...]

checks the pages (default: Documentation/events.rst) and exits 1 naming
each block that differs from its source; --update rewrites those blocks.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMENT = re.compile(r"^\.\. code from (\S+) \[([\w-]+)\]$")
DIRECTIVE = re.compile(r"^\.\. code-block:: \S+$")
INDENT = "   "


def snippet(path, name):
    """The lines of @path between the markers of @name, dedented."""
    lines = (ROOT / path).read_text().split("\n")
    start, end = "/* [%s] */" % name, "/* [/%s] */" % name
    try:
        a = next(i for i, l in enumerate(lines) if l.strip() == start)
        b = next(i for i, l in enumerate(lines) if i > a and l.strip() == end)
    except StopIteration:
        raise SystemExit("doc-examples: %s has no %s ... %s" % (path, start, end))
    body = [l.expandtabs(8).rstrip() for l in lines[a + 1:b]]
    cut = min((len(l) - len(l.lstrip()) for l in body if l), default=0)
    return [l[cut:] for l in body]


def process(page, update):
    """Check (or rewrite) @page's blocks; return the number that differ."""
    lines = page.read_text().split("\n")
    out, bad, i = [], 0, 0
    while i < len(lines):
        m = COMMENT.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        # the comment, a blank line, the directive, a blank line, the block
        if i + 2 >= len(lines) or lines[i] or not DIRECTIVE.match(lines[i + 1]) or lines[i + 2]:
            raise SystemExit("doc-examples: %s:%d: '.. code-block:: LANG' with blank lines "
                             "around it must follow '%s'" % (page, i, lines[i - 1]))
        out += lines[i:i + 3]
        i += 3
        j = i
        while j < len(lines) and (not lines[j] or lines[j].startswith(INDENT)):
            j += 1
        while j > i and not lines[j - 1]:
            j -= 1
        want = [INDENT + l if l else "" for l in snippet(m.group(1), m.group(2))]
        if lines[i:j] != want:
            bad += 1
            print("%s:%d: the code from %s [%s] %s" % (page, i + 1, m.group(1), m.group(2),
                  "rewritten from the source" if update else "differs from the source"),
                  file=sys.stderr)
        out += want if update else lines[i:j]
        i = j
    if update and bad:
        page.write_text("\n".join(out))
    return bad


def main(argv):
    update = "--update" in argv
    pages = [Path(a) for a in argv if a != "--update"] or [ROOT / "Documentation/events.rst"]
    bad = sum(process(p, update) for p in pages)
    if bad and not update:
        print("doc-examples: %d block(s) differ; scripts/doc-examples.py --update rewrites "
              "them from the sources" % bad, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
