#!/bin/sh
# The editor's GUI self-test (allium --self-test DIR) on a virtual X display with Mesa's
# software OpenGL. Everything it writes stays in OUT: the map documents, screenshots
# (OUT/shots/*.png), and the settings, recent files and caches, which XDG_* point there so
# that the real home folder is not touched.
#
#   gui-self-test.sh ALLIUM OUT
#
# Exit status: the self-test's (0: every check passed), 77 (skipped) without xvfb-run.
set -u
allium=$1
out=$2

if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "xvfb-run is not installed: GUI self-test skipped"
    exit 77
fi

rm -rf "$out"
mkdir -p "$out/shots" "$out/xdg/data" "$out/xdg/config" "$out/xdg/cache" "$out/xdg/runtime"
chmod 700 "$out/xdg/runtime"
export XDG_DATA_HOME="$out/xdg/data"
export XDG_CONFIG_HOME="$out/xdg/config"
export XDG_CACHE_HOME="$out/xdg/cache"
export XDG_RUNTIME_DIR="$out/xdg/runtime"
export LIBGL_ALWAYS_SOFTWARE=1
export GDK_BACKEND=x11
export GSETTINGS_BACKEND=memory
export GTK_A11Y=none
# No session bus in a test: the application runs without one.
unset DBUS_SESSION_BUS_ADDRESS

exec xvfb-run -a -s "-screen 0 1600x1000x24" "$allium" --self-test "$out/shots"
