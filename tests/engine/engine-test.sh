#!/bin/sh
# The exported BSP in a real Quake engine: DarkPlaces' dedicated server (Debian's
# darkplaces-server, which loads a map without the game's data files) runs a progs.dat
# compiled here with fteqcc from qc/ (the fields and globals a Quake progs needs, the spawn
# functions of engine-room.map's classes, and checks of the loaded map through the
# engine's own point contents, line and box traces on the first frame: on any map the
# player start's, on engine-room.map its own numbers too).
#
#   engine-test.sh ALLIUM-COMPILE QC-DIR MAP FORMAT WORK-DIR [CHECKS [COMPILE-OPTION...]]
#
# The map is compiled and lit (its .lit beside it) unless a COMPILE-OPTION says --no-rad.
# Passes when the server spawns the map with no error, bad, failed, warning, corrupt,
# unknown or ignoring line (a .lit that does not fit is "ignoring"d), and the
# QuakeC's CHECKS checks (default 15, engine-room.map's) all say ok. Skips (exit 77) when
# darkplaces-server or fteqcc is absent, or MAP is (a real map without shared_maps).
set -u
compile=$1 qc=$2 map=$3 format=$4 work=$5 checks=${6:-15}
shift 5
[ $# -gt 0 ] && shift

if [ ! -f "$map" ]; then
    echo "SKIP: $map is absent (meson option shared_maps)"
    exit 77
fi

server=$(command -v darkplaces-server || command -v /usr/games/darkplaces-server)
if [ -z "$server" ]; then
    echo "SKIP: darkplaces-server is not installed (apt-get install darkplaces-server)"
    exit 77
fi
if ! command -v fteqcc >/dev/null; then
    echo "SKIP: fteqcc is not installed (apt-get install fteqcc)"
    exit 77
fi

mkdir -p "$work"
game=$(mktemp -d "$work/engine-$format-XXXXXX") || exit 1
[ -n "${KEEP_ENGINE_DIR:-}" ] || trap 'rm -rf "$game"' EXIT
mkdir -p "$game/id1/maps" "$game/qc"
cp "$qc"/*.qc "$qc/progs.src" "$game/qc/" || exit 1

if ! (cd "$game/qc" && fteqcc -srcfile progs.src) >"$game/fteqcc.log" 2>&1 ||
    [ ! -s "$game/qc/progs.dat" ]; then
    echo "FAIL: fteqcc could not compile the test's QuakeC:"
    cat "$game/fteqcc.log"
    exit 1
fi
mv "$game/qc/progs.dat" "$game/id1/progs.dat"

if ! "$compile" --no-cache "$@" --bsp "$game/id1/maps/test.bsp" --bsp-format "$format" \
    "$map" >"$game/compile.log" 2>&1; then
    echo "FAIL: allium-compile --bsp failed:"
    cat "$game/compile.log"
    exit 1
fi

# A few frames, then quit; the timeout is for an engine that hangs.
timeout 120 "$server" -basedir "$game" -nohome +port $((27000 + $$ % 5000)) +developer 1 \
    +map test +wait +wait +wait +quit >"$game/engine.log" 2>&1
status=$?
log="$game/engine.log"
fail=0
if [ $status -ne 0 ]; then
    echo "FAIL: darkplaces-server exited with status $status"
    fail=1
fi
if ! grep -q '^Server spawned\.' "$log"; then
    echo "FAIL: the log does not say \"Server spawned.\""
    fail=1
fi
# A port another server holds (another test, a game) is the network's business, not the
# map's: those lines are left out. So is an empty submodel: a brush entity whose every face
# is skip or clip (lq-e3m4's invisible func_walls) has no faces, as Quake's qbsp writes it.
problems=$(grep -Ei 'error|bad|failed|warning|corrupt|unknown|ignoring' "$log" |
    grep -Ev 'LHNET_OpenSocket_Connectionless: bind returned error|failed to open socket' |
    grep -Ev '^warning: empty submodel \*[0-9]+ in maps/test\.bsp$')
if [ -n "$problems" ]; then
    echo "FAIL: the log has error, bad, failed, warning, corrupt, unknown or ignoring lines:"
    echo "$problems"
    fail=1
fi
oks=$(grep -c 'allium-test: ok' "$log")
if grep -q 'allium-test: FAIL' "$log" || ! grep -q 'allium-test: all checks passed' "$log" ||
    [ "$oks" -ne "$checks" ]; then
    echo "FAIL: the QuakeC's checks did not all pass ($oks of $checks ok):"
    grep 'allium-test' "$log"
    fail=1
fi
if [ $fail -ne 0 ]; then
    echo "--- engine log"
    cat "$log"
    exit 1
fi
grep 'Stats for q1bsp\|allium-test' "$log"
echo "PASS: $format: darkplaces-server spawned the map and its $oks checks passed"
exit 0
