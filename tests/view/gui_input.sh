#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/view/gui_input.sh RINGTRACE TRACE SHOT.png SCENARIO: run under xvfb-run by
# tests/view/test_render.c.  Opens `ringtrace gui` on TRACE, drives it with
# real X input (xdotool: pointer, wheel, clicks, keys), then has it save
# the window (SIGUSR1, --on-signal) into SHOT.png.  Every wait is bounded.
#   zoom-click: ten wheel notches up at x = 0, then a click at (300, 144)
#   search:     / then "main loop" then Enter
#   path:X:Y    a click at (X, Y), then p (the critical path)
#   click:X:Y   a click at (X, Y) only
#   hist:X:Y    a click at (X, Y), then H (the durations of its kind)
#   histprev:X:Y  the same, then [ (the bucket before)
set -u
rt=$1 trace=$2 shot=$3 scenario=$4
GSK_RENDERER=cairo NO_AT_BRIDGE=1 "$rt" gui --size 1000x400 --screenshot "$shot" --on-signal "$trace" &
pid=$!
wid=$(timeout 20 xdotool search --sync --onlyvisible --name "ringtrace gui" | head -n 1)
if [ -z "$wid" ]; then
	echo "gui_input: the window did not appear" >&2
	kill "$pid"
	exit 1
fi
sleep 0.5
xdotool mousemove --window "$wid" 0 100
case $scenario in
zoom-click)
	xdotool click --repeat 10 --delay 30 4
	sleep 0.3
	xdotool mousemove --window "$wid" 300 144 click 1
	;;
search)
	xdotool key slash
	sleep 0.3
	xdotool type --delay 20 "main loop"
	xdotool key Return
	;;
path:* | click:* | hist:* | histprev:*)
	xy=${scenario#*:}
	xdotool mousemove --window "$wid" "${xy%:*}" "${xy#*:}" click 1
	sleep 0.3
	case $scenario in
	path:*) xdotool key p ;;
	hist:*) xdotool key H ;;
	histprev:*) xdotool key H && sleep 0.3 && xdotool key bracketleft ;;
	esac
	;;
esac
sleep 0.5
kill -USR1 "$pid"
timeout 20 tail --pid="$pid" -f /dev/null
wait "$pid"
echo "gui exit $?"
