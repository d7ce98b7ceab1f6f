#!/bin/sh
# The runtime's example walks an agent through engine-room.map exported by allium-compile
# --runtime: it must load the file, never stand in solid, and get somewhere.
#   walk-test.sh ALLIUM-COMPILE ALRT-WALK MAP WORKDIR
set -eu
compile=$1 walk=$2 map=$3 dir=$4
mkdir -p "$dir"
out="$dir/walk.alw"
"$compile" --no-rad --runtime "$out" "$map" > "$dir/compile.log"
"$walk" --steps 300 --every 1 "$out" > "$dir/walk.log"
cat "$dir/walk.log" | head -3
if grep -q ' solid ' "$dir/walk.log"; then
    echo "the agent stood in solid:"; grep ' solid ' "$dir/walk.log" | head; exit 1
fi
# It moved: the first and last positions are apart, and it stood on the floor.
awk '!/^#/ { if (!seen) { x0 = $3; y0 = $4; seen = 1 } x = $3; y = $4; g += $8 }
     END { d = sqrt((x - x0) ^ 2 + (y - y0) ^ 2); print "moved " d ", on ground " g " steps";
           exit !(d > 32 && g > 100) }' "$dir/walk.log"
# A damaged file is refused with a message naming it.
printf 'XXXXXXXX' | dd of="$out" bs=1 seek=0 conv=notrunc 2>/dev/null
if "$walk" "$out" 2> "$dir/err.log"; then echo "a damaged file was walked"; exit 1; fi
grep -q "walk.alw: section header: not an Allium runtime world" "$dir/err.log"
