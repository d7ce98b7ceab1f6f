/* Oracles for radiosity carried across edits (al_rad_update), shared by the compiler
 * tests and the real-map tests: each recomputes from nothing what a solver's state says
 * its light is. */
#ifndef ALLIUM_RAD_CHECK_H
#define ALLIUM_RAD_CHECK_H

#include "al-rad.h"

#include <stddef.h>

/* The worst difference between a luxel's bounced light (incident - direct) and what all
 * panels' sent exitance gives it through the kernel in RAD's own world, gathered anew,
 * relative to the mean incident light; every STRIDE-th group is checked (*CHECKED gets the
 * luxels), the worst described in WHY. */
double rad_check_bounce(al_rad *rad, int stride, int *checked, char *why, size_t size);

/* The worst difference between RAD's direct light and FRESH's (a solver of the same world
 * that shot the same lights), relative to FRESH's mean direct light. Luxels where the two
 * differ only by light whose ray to the luxel passes where the PVS says no line of sight
 * does (a ray through an edge two brushes share: a tie the light trees and the portals
 * break differently) are counted in *TIES instead. */
double rad_check_direct(const al_rad *rad, const al_rad *fresh, int *ties, char *why,
                        size_t size);

/* Mean difference of two solvers' light (incident, ambient left out) over their luxels
 * (the same layout), relative to B's mean; -1 if their layouts differ. */
double rad_check_difference(const al_rad *a, const al_rad *b);

/* A new solver of RAD's world and input with its options (nothing shot). */
al_status rad_check_fresh(const al_rad *rad, al_rad **out);

/* The stride for rad_check_bounce that checks about GROUPS of RAD's groups. */
int rad_check_stride(const al_rad *rad, int groups);

/* Steps RAD until no correction is left (al_rad_update's). */
void rad_check_finish_corrections(al_rad *rad);

#endif
