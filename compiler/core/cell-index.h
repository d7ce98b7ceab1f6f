/* A uniform grid of cells listing which items' boxes overlap each cell.
 *
 * Used to find the few brush models near a trace and, in the oracles, the few brushes near
 * a query. Built once from the items' boxes (two passes: count, then fill, into one array);
 * read-only afterwards, so any number of threads may query it.
 */
#ifndef AL_CELL_INDEX_H
#define AL_CELL_INDEX_H

#include <stdbool.h>

typedef struct al_cell_index {
    double cell;     /* edge of a cell in units */
    double inv_cell;
    int origin[3];   /* in cells */
    int dims[3];
    int *start;      /* owned; cells + 1 entries: items of cell c are items[start[c]..start[c+1]) */
    int *items;      /* owned */
} al_cell_index;

/* Gives item I's box; returns false to leave the item out. */
typedef bool (*al_cell_index_box_fn)(void *context, int i, double mins[3], double maxs[3]);

/* Builds the index over COUNT items with cells of CELL units. When the items' bounds would
 * need more than MAX_CELLS cells, one cell holds every item (queries then test them all).
 * Returns false if memory runs out. */
bool al_cell_index_build(al_cell_index *ix, double cell, int count, al_cell_index_box_fn box,
                         void *context, long long max_cells);

void al_cell_index_free(al_cell_index *ix);

/* floor(X) clamped to [LO, HI], without a libm call (baseline x86-64 has no rounding
 * instruction, and grid lookups are on every trace's path). NaN gives LO. With LO >= 0
 * (every grid's case, a constant once inlined) X is not negative past the first test, so
 * truncation is the floor and the correction drops out. */
static inline int al_floor_clamp(double x, int lo, int hi)
{
    if (!(x >= lo)) return lo;
    if (x >= hi) return hi;
    int i = (int) x;
    return lo >= 0 ? i : i - (x < i);
}

/* The cells overlapped by the box [MINS, MAXS], clamped to the grid (so a box outside it
 * gets the edge cells, whose items it then tests). Inline: every trace asks it. */
static inline void al_cell_index_range(const al_cell_index *ix, const double mins[3],
                                       const double maxs[3], int lo[3], int hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = al_floor_clamp(mins[k] * ix->inv_cell - ix->origin[k], 0, ix->dims[k] - 1);
        hi[k] = al_floor_clamp(maxs[k] * ix->inv_cell - ix->origin[k], 0, ix->dims[k] - 1);
    }
}

static inline int al_cell_index_cell(const al_cell_index *ix, int x, int y, int z);

/* The cell holding point P, clamped to the grid. */
static inline int al_cell_index_point_cell(const al_cell_index *ix, const double p[3])
{
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = al_floor_clamp(p[k] * ix->inv_cell - ix->origin[k], 0, ix->dims[k] - 1);
    return al_cell_index_cell(ix, c[0], c[1], c[2]);
}

static inline int al_cell_index_cell(const al_cell_index *ix, int x, int y, int z)
{
    return (z * ix->dims[1] + y) * ix->dims[0] + x;
}

#endif
