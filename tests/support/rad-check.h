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

/* The same over the luxels J with ONLY[J] equal to WANT (ONLY NULL: all); *COMPARED gets
 * how many, *EXACT those equal to the last bit. */
double rad_check_direct_where(const al_rad *rad, const al_rad *fresh, const unsigned char *only,
                              int want, int *ties, long long *compared, long long *exact, char *why,
                              size_t size);

/* How far RAD's books are off: |absorbed + escaped + unshot - emitted| / emitted (0 with
 * nothing emitted), described in WHY. */
double rad_check_books(al_rad *rad, char *why, size_t size);

/* A new solver of RAD's world and input with its options (nothing shot). */
al_status rad_check_fresh(const al_rad *rad, al_rad **out);

/* The stride for rad_check_bounce that checks about GROUPS of RAD's groups. */
int rad_check_stride(const al_rad *rad, int groups);

/* Steps RAD until no correction is left (al_rad_update's). */
void rad_check_finish_corrections(al_rad *rad);

/* The sun rays RAD does not cast because the PVS rules out sky for a luxel's vis leaf
 * (al_rad_may_see_sky), cast: every sample of each such luxel toward every sun it faces.
 * Returns how many end on sky (the first described in WHY; none may); *GATED the luxels,
 * *RAYS the rays. */
int64_t rad_check_sky_gate(const al_rad *rad, int64_t *gated, int64_t *rays, char *why,
                           size_t size);

/* Light carried across random edits: INPUT and WORLD (compiled from it, with visibility)
 * lit with OPTIONS to RESIDUAL, then EDITS random edits (al-edits.h), each world
 * updated from the last (coarse PVS) and its solver from the last; after each, the direct
 * light against a new solver's (rad_check_direct) and, once corrected, the bounced light
 * against a gather of about GROUPS groups (rad_check_bounce), and the books; with extra
 * samples also the coarse luxels (rad_edit_report). Between edits
 * the solver shoots 16 more times, as the editor would; every other edit (the first, the
 * third, ... unless it is the last) is left uncorrected, so that the next one updates a
 * solver still correcting, and its bounced light is checked through the next one's. */
typedef struct rad_edit_report {
    int edits, failed;
    double worst_direct, worst_bounce; /* relative to the mean */
    int ties;                          /* rad_check_direct's, summed */
    long long luxels;                  /* whose direct light was compared, summed */
    int books_off;                     /* edits whose books did not balance */
    long long corrections;             /* panels corrected, summed */
    int checked;                       /* luxels gathered anew, summed */
    long long clusters_off;            /* luxels whose vis leaf is not a new solver's */
    /* With extra samples (al_rad_update lights changed luxels at their sample point first):
     * right after each update, the coarse luxels against a new solver sampling once, the
     * others against one sampling as RAD does (in worst_direct); once corrected, every
     * luxel against the latter again (worst_refined). */
    double worst_coarse, worst_refined;
    long long coarse_luxels, coarse_exact; /* compared, and equal to the last bit */
    int edits_with_coarse;
    char why[256];                     /* the worst difference */
} rad_edit_report;

struct al_input;
struct al_world;
void rad_check_edits(const struct al_input *input, const struct al_world *world,
                     const al_rad_options *options, double residual, int edits, uint64_t seed,
                     int groups, rad_edit_report *out);

#endif
