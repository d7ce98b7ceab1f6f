/* The editor's benchmarks: allium --benchmark-frames N MAP and allium --benchmark-edits N
 * MAP (see allium-benchmark.c). */
#pragma once

#include "allium-application.h"

G_BEGIN_DECLS

/* Opens MAP in a 1280x720 window with only the 3D view, then draws FRAMES frames while
 * turning the camera or (FRAMES 0) makes EDITS brush moves, prints the timings as JSON on
 * stdout and quits. */
void allium_benchmark_start(AlliumApplication *app, int frames, int edits, GFile *map);

G_END_DECLS
