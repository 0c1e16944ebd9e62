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
