# SPDX-License-Identifier: MIT
#
# Sphinx configuration for ringtrace's Documentation/.  `make htmldocs` runs
# `sphinx-build -W` here, so every page must build without a warning.  Only
# what Sphinx has built in is used (Debian's python3-sphinx, no extensions):
# the API is described with the C domain's directives, not extracted from
# the sources.

project = 'ringtrace'
copyright = 'the ringtrace authors'
author = 'the ringtrace authors'

master_doc = 'index'
root_doc = 'index'
source_suffix = '.rst'
exclude_patterns = ['_build']

primary_domain = 'c'
highlight_language = 'c'
default_role = None

html_theme = 'alabaster'
html_static_path = []
html_show_sourcelink = False

# `make man` (and `make install`): sphinx-build -b man.  ringtrace(1) is the
# command reference, one page with every subcommand; ringtrace(3) the API a
# traced program calls; ringtrace-consumer(3) the consumer's (consumer.h).
man_pages = [
    ('ringtrace', 'ringtrace',
     'record, stream, snapshot, recover and read traces of programs linked with libringtrace',
     [], 1),
    ('events', 'ringtrace',
     'the tracing API: start and stop, the task model, counters, typed events',
     [], 3),
    ('consumer', 'ringtrace-consumer',
     'reading a region: attach, wait, take complete packets, release them',
     [], 3),
]
man_show_urls = False
