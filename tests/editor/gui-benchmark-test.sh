#!/bin/sh
# The editor's own benchmarks run on the sample map and report what the README quotes:
# allium --benchmark-edits 3 and --benchmark-drag 20 on a virtual X display must each
# print one JSON line with their figures, begun on a settled engine (started_settled), the
# edits each with a collision and a lit frame, the drag with a preview, a frame interval
# and a lag for every frame.
#
#   gui-benchmark-test.sh ALLIUM MAP OUT
#
# Exit status 0 when every check passed, 1 otherwise, 77 (skipped) without xvfb-run or
# python3. Everything the editor writes stays in OUT.
set -u
allium=$1
map=$2
out=$3

if ! command -v xvfb-run >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "xvfb-run or python3 is not installed: benchmark test skipped"
    exit 77
fi
. "$(dirname "$0")/gui-env.sh"
gui_env "$out"
cp "$map" "$out/sample.map"

run() { # KIND COUNT
    timeout 240 xvfb-run -a -s "-screen 0 1280x800x24" "$allium" "--benchmark-$1" "$2" \
        "$out/sample.map" >"$out/$1.out" 2>"$out/$1.err"
    status=$?
    if [ $status -ne 0 ]; then
        echo "allium --benchmark-$1 failed with status $status (124: no result in 240 s):"
        cat "$out/$1.err"
        return 1
    fi
    grep '^{' "$out/$1.out" >"$out/$1.json"
}

run edits 3 && run drag 20 || exit 1
python3 - "$out/edits.json" "$out/drag.json" <<'PY'
import json, sys
failed = 0
def check(ok, what):
    global failed
    print(("ok - " if ok else "FAILED - ") + what)
    failed += not ok
edits = json.load(open(sys.argv[1]))
drag = json.load(open(sys.argv[2]))
check(edits["edits"] == 3, "three edits measured (%s)" % edits["edits"])
for key in ("collision_frame_ms", "lit_frame_ms", "engine_collision_ms", "draw_ms"):
    check(key in edits and edits[key]["median"] > 0, "edits: %s %s" % (key, edits.get(key)))
check(edits["lit_missing"] == 0, "every edit was lit (%d missing)" % edits["lit_missing"])
check(edits["started_settled"] is True and edits["settled_ms"] > 0,
      "the edits began on a settled engine (at %.0f ms)" % edits["settled_ms"])
check(drag["frames"] == 20 and drag["previews"] == 20,
      "twenty drag frames, a preview each (%d, %d)" % (drag["frames"], drag["previews"]))
check(drag["frame_interval_ms"]["median"] > 0 and drag["snapshot_lag_frames"]["max"] >= 0,
      "drag: frame interval %s, lag %s" % (drag["frame_interval_ms"], drag["snapshot_lag_frames"]))
check(drag["started_settled"] is True, "the drag began on a settled engine")
sys.exit(1 if failed else 0)
PY
