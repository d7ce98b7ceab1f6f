/* Uniform cell index (see cell-index.h). */
#include "cell-index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool al_cell_index_build(al_cell_index *ix, double cell, int count, al_cell_index_box_fn box,
                         void *context, long long max_cells)
{
    memset(ix, 0, sizeof *ix);
    ix->cell = cell;
    ix->inv_cell = 1.0 / cell;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < count; i++) {
        double mins[3], maxs[3];
        if (!box(context, i, mins, maxs)) continue;
        for (int k = 0; k < 3; k++) {
            if (mins[k] < lo[k]) lo[k] = mins[k];
            if (maxs[k] > hi[k]) hi[k] = maxs[k];
        }
    }
    long long cells = 1;
    for (int k = 0; k < 3; k++) {
        if (!(lo[k] <= hi[k])) lo[k] = hi[k] = 0; /* no items */
        double first = floor(lo[k] * ix->inv_cell), last = floor(hi[k] * ix->inv_cell);
        if (!(last - first < (double) max_cells)) {
            cells = max_cells + 1; /* absurd: one cell, below */
            break;
        }
        ix->origin[k] = (int) first;
        ix->dims[k] = (int) (last - first) + 1;
        cells *= ix->dims[k];
    }
    if (cells > max_cells) {
        for (int k = 0; k < 3; k++) ix->origin[k] = 0;
        for (int k = 0; k < 3; k++) ix->dims[k] = 1;
        cells = 1;
    }
    ix->start = calloc((size_t) cells + 1, sizeof *ix->start);
    if (!ix->start) return false;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < count; i++) {
            double mins[3], maxs[3];
            if (!box(context, i, mins, maxs)) continue;
            int a[3], b[3];
            al_cell_index_range(ix, mins, maxs, a, b);
            for (int z = a[2]; z <= b[2]; z++)
                for (int y = a[1]; y <= b[1]; y++)
                    for (int x = a[0]; x <= b[0]; x++) {
                        int c = al_cell_index_cell(ix, x, y, z);
                        if (pass == 0) ix->start[c + 1]++;
                        else ix->items[ix->start[c]++] = i;
                    }
        }
        if (pass == 0) {
            for (long long c = 0; c < cells; c++) ix->start[c + 1] += ix->start[c];
            ix->items = malloc(((size_t) ix->start[cells] + 1) * sizeof *ix->items);
            if (!ix->items) {
                al_cell_index_free(ix);
                return false;
            }
        } else {
            /* Filling moved each start to the next cell's: shift them back. */
            for (long long c = cells; c > 0; c--) ix->start[c] = ix->start[c - 1];
            ix->start[0] = 0;
        }
    }
    return true;
}

void al_cell_index_free(al_cell_index *ix)
{
    if (!ix) return;
    free(ix->start);
    free(ix->items);
    memset(ix, 0, sizeof *ix);
}
