# SPDX-License-Identifier: MIT
# What the section scripts of `make bench` share (sourced, with $rows set:
# the ROWS_FILE that scripts/bench.sh merges into results.json).

# row NAME VALUE UNIT: a figure, printed and appended to $rows.
row() {
	printf '  %-36s %14.3f  %s\n' "$1" "$2" "$3"
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$rows"
}

# min A B: the smaller, either may be empty.
min() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || (b != "" && b + 0 < a + 0)) print b; else print a }'
}
