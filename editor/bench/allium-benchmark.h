/* The frame benchmark: allium --benchmark-frames N MAP (see allium-benchmark.c). */
#pragma once

#include "allium-application.h"

G_BEGIN_DECLS

/* Opens MAP in a 1280x720 window with only the 3D view, draws FRAMES frames while turning
 * the camera, prints the timings as JSON on stdout and quits. */
void allium_benchmark_start(AlliumApplication *app, int frames, GFile *map);

G_END_DECLS
