/* The editor's benchmarks: allium --benchmark-frames N MAP, --benchmark-edits N MAP and
 * --benchmark-drag N MAP (see allium-benchmark.c). */
#pragma once

#include "allium-application.h"

G_BEGIN_DECLS

typedef enum {
    ALLIUM_BENCHMARK_FRAMES, /* COUNT frames while the camera turns */
    ALLIUM_BENCHMARK_EDITS,  /* COUNT brush moves, each waited for */
    ALLIUM_BENCHMARK_DRAG,   /* a drag of COUNT frames */
} AlliumBenchmarkKind;

/* Opens MAP in a 1280x720 window with only the 3D view, measures KIND, prints the timings
 * as JSON on stdout and quits. */
void allium_benchmark_start(AlliumApplication *app, AlliumBenchmarkKind kind, int count,
                            GFile *map);

G_END_DECLS
