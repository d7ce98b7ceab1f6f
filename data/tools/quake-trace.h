/* A reference for the trace benchmark: Quake's hull check (SV_RecursiveHullCheck's
 * algorithm: fractions, a 1/32-unit back-off at the crossing, a point-contents probe of the
 * far side) over one hull's own map tree. Run on the same segments in the same process, it
 * says how the onion trace compares with a per-hull clip tree under the same conditions,
 * which matters on a machine whose speed drifts. Benchmark code only. */
#ifndef AL_TOOLS_QUAKE_TRACE_H
#define AL_TOOLS_QUAKE_TRACE_H

#include "al-world.h"

/* Fraction of the move from START to END before the box of HULL hits the world model, by
 * Quake's algorithm on HULL's map trees. */
double al_quake_trace(const al_world *world, int hull, const double start[3], const double end[3]);

#endif
