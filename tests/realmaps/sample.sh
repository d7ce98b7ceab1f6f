#!/bin/sh
# The real-map tests on a sample of a large corpus: COUNT maps of the folder DIR (relative
# to the shared maps folder, say "id"), drawn anew each day. A run names its maps and its
# seed; ALLIUM_SAMPLE_SEED=N runs that sample again, ALLIUM_SAMPLE_COUNT=all every map.
#   sample.sh TEST-REALMAPS FIXTURE-DIR SHARED-MAPS DIR COUNT
test_realmaps=$1 fixtures=$2 shared=$3 dir=$4 count=${ALLIUM_SAMPLE_COUNT:-$5}
if [ ! -d "$shared/$dir" ]; then
    echo "SKIP: the corpus $shared/$dir is absent (meson option shared_maps)"
    exit 77
fi
seed=${ALLIUM_SAMPLE_SEED:-$(( $(date +%s) / 86400 ))}
maps=$(cd "$shared/$dir" && ls *.map | sort)
[ "$count" = all ] || maps=$(printf '%s\n' $maps | awk -v seed="$seed" -v n="$count" '
    BEGIN { srand(seed) } { line[NR] = $0 }
    END { for (i = NR; i > 1; i--) { j = int(rand() * i) + 1; t = line[i]; line[i] = line[j]; line[j] = t }
          for (i = 1; i <= n && i <= NR; i++) print line[i] }')
echo "# sample of $dir (seed $seed; again: ALLIUM_SAMPLE_SEED=$seed):" $maps
failed=0
for map in $maps; do
    echo "# --- $dir/$map"
    "$test_realmaps" "$dir/$map" "$fixtures" || failed=$((failed + 1))
done
echo "# $failed of $(printf '%s\n' $maps | wc -l) maps failed"
[ "$failed" -eq 0 ]
