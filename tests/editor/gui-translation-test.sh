#!/bin/sh
# The German translation as a designer sees it: the editor runs on a virtual X display
# with LANGUAGE=de and prints the text of the labels in its window (allium
# --print-labels); the menu bar and the side panel (from the .ui templates) and the
# views' projection and message (set by the C code) must read in German. The same run
# without LANGUAGE must show them in English, so that the check cannot pass on a window
# that shows neither.
#
#   gui-translation-test.sh ALLIUM LOCALEDIR OUT
#
# LOCALEDIR: the build's compiled catalogues (BUILD/po, which holds
# de/LC_MESSAGES/allium.mo); empty when the build has none (gettext's msgfmt was not
# found). The editor is not told where they are (ALLIUM_LOCALEDIR is unset): run from the
# build folder, as the README says, it finds them itself. Everything the editor writes
# stays in OUT.
#
# Exit status 0 when every check passed, 1 otherwise, 77 (skipped) without xvfb-run, the
# C.UTF-8 locale, or compiled catalogues.
set -u
allium=$1
localedir=$2
out=$3

if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "xvfb-run is not installed: GUI translation test skipped"
    exit 77
fi
if [ -z "$localedir" ]; then
    echo "the build has no compiled translations (msgfmt not found): GUI translation test skipped"
    exit 77
fi
# gettext ignores LANGUAGE in the "C" locale, but not in C.UTF-8, glibc's built-in UTF-8
# locale (in every Debian since 12), so the test needs no generated de_DE locale.
if ! locale -a 2>/dev/null | grep -qix 'c\.utf-\{0,1\}8'; then
    echo "the C.UTF-8 locale is not available: GUI translation test skipped"
    exit 77
fi

. "$(dirname "$0")/gui-env.sh"
gui_env "$out"
unset ALLIUM_LOCALEDIR
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset LC_MESSAGES

failures=0
check() { # OK WHAT
    if [ "$1" = 0 ]; then
        echo "ok - $2"
    else
        echo "FAILED - $2"
        failures=$((failures + 1))
    fi
}

# Runs the editor with LANGUAGE=$1 (empty: unset); its labels go to $out/labels-NAME.
print_labels() { # LANGUAGE NAME
    if [ -n "$1" ]; then export LANGUAGE="$1"; else unset LANGUAGE; fi
    xvfb-run -a -s "-screen 0 1600x1000x24" "$allium" --print-labels \
        >"$out/labels-$2" 2>"$out/stderr-$2"
    status=$?
    check "$status" "allium --print-labels in $2 exits with 0 (it exited with $status)"
    if [ "$status" != 0 ]; then cat "$out/stderr-$2"; fi
}

print_labels "" english
print_labels de german

# Whether the run NAME printed LABEL as a whole line (MODE x) or TEXT within a line (MODE
# s: the banner's text is one long line).
printed() { # MODE NAME TEXT
    if [ "$1" = x ]; then grep -qxF -- "$3" "$out/labels-$2"; else grep -qF -- "$3" "$out/labels-$2"; fi
}

# Each of PAIRS ("English|German") must be printed in English, in German with
# LANGUAGE=de, and not in English then. WHERE names what shows it.
check_pairs() { # MODE WHERE PAIRS...
    mode=$1 where=$2
    shift 2
    for pair in "$@"; do
        english=${pair%%|*}
        german=${pair#*|}
        printed "$mode" english "$english"
        check $? "in English $where \"$english\""
        printed "$mode" german "$german"
        check $? "with LANGUAGE=de $where \"$german\""
        ! printed "$mode" german "$english"
        check $? "with LANGUAGE=de not \"$english\""
    done
}

# The menu bar, the side panel's pages, a view's projection menu and a view's message.
check_pairs x "the window shows" "File|Datei" "Edit|Bearbeiten" "Properties|Eigenschaften" \
    "Compile|Kompilieren" "Top (X/Y)|Oben (X/Y)" "No map open|Keine Map geöffnet"

# The banner shows the map reader's messages about a broken map (allium-print-labels.c):
# the compiler's and the document layer's messages go through gettext too.
check_pairs s "the banner says" \
    "line 4, column 21: entity 0, brush 0: |Zeile 4, Spalte 21: Entity 0, Brush 0: " \
    "expected '(' to start a plane point, found 'oops'; brush skipped|„(“ für den Beginn eines Ebenenpunkts erwartet, „oops“ gefunden; Brush übersprungen" \
    "expected '{' to start an entity, found 'oops'|„{“ für den Beginn einer Entity erwartet, „oops“ gefunden"

if [ "$failures" != 0 ]; then
    echo "$failures checks FAILED; the labels are in $out/labels-english and $out/labels-german"
    exit 1
fi
echo "all checks passed"
