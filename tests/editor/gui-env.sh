# The environment the GUI tests run the editor in (sourced by gui-self-test.sh and
# gui-translation-test.sh): a fresh OUT whose xdg/ holds the settings, recent files and
# caches instead of the real home folder, Mesa's software OpenGL through X11, settings in
# memory, no accessibility bus and no session bus (the application runs without one).
gui_env() { # OUT
    rm -rf "$1"
    mkdir -p "$1/xdg/data" "$1/xdg/config" "$1/xdg/cache" "$1/xdg/runtime"
    chmod 700 "$1/xdg/runtime"
    export XDG_DATA_HOME="$1/xdg/data"
    export XDG_CONFIG_HOME="$1/xdg/config"
    export XDG_CACHE_HOME="$1/xdg/cache"
    export XDG_RUNTIME_DIR="$1/xdg/runtime"
    export LIBGL_ALWAYS_SOFTWARE=1
    export GDK_BACKEND=x11
    export GSETTINGS_BACKEND=memory
    export GTK_A11Y=none
    unset DBUS_SESSION_BUS_ADDRESS
}
