#!/bin/sh
# The editor's GUI self-test (allium --self-test DIR) on a virtual X display with Mesa's
# software OpenGL. Everything it writes stays in OUT: the map documents, screenshots
# (OUT/shots/*.png), and the settings, recent files and caches, which XDG_* point there so
# that the real home folder is not touched.
#
#   gui-self-test.sh ALLIUM OUT
#
# Exit status: the self-test's (0: every check passed; 1 also when GTK, GLib or the editor
# logged a warning or critical), 77 (skipped) without xvfb-run.
set -u
allium=$1
out=$2

if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "xvfb-run is not installed: GUI self-test skipped"
    exit 77
fi

. "$(dirname "$0")/gui-env.sh"
gui_env "$out"
mkdir -p "$out/shots"

# GTK's warnings and criticals (a widget measured wrong, a signal on a dead object) fail
# the test too: they are shown, and counted from a copy of the error stream. One is GTK's
# own and is not counted: on a loaded machine GTK 4.8's file chooser sometimes snapshots
# the buttons of its path bar before they are laid out ("Trying to snapshot GtkButton ...
# without a current allocation"), in the two steps that show it.
xvfb-run -a -s "-screen 0 1600x1000x24" "$allium" --self-test "$out/shots" 2>"$out/stderr.txt"
status=$?
cat "$out/stderr.txt" >&2
counts=$(awk '
/^self-test step: / { step = substr($0, 17) }
/(Gtk|GLib|GLib-GObject|Gdk|Allium)-(CRITICAL|WARNING)/ {
    if ((step == "open through the Open dialog" || step == "new map through the New dialog") &&
        $0 ~ /Gtk-WARNING .*Trying to snapshot GtkButton .* without a current allocation/) {
        chooser++
        next
    }
    logged++
}
END { print logged + 0, chooser + 0 }' "$out/stderr.txt")
logged=${counts% *}
chooser=${counts#* }
[ "$chooser" -gt 0 ] && echo "note - GTK's file chooser warned $chooser time(s) of its path bar (not counted)"
if [ "$logged" -gt 0 ]; then
    echo "FAILED - the editor logged warnings or criticals (above)"
    [ "$status" -eq 0 ] && status=1
fi
exit "$status"
