/* Open cells: where a short move needs no tree.
 *
 * Most traces an agent or a designer makes run through open space, and the descent of the
 * onion tree pays for a chain of node tests (joining nodes over the sub-cells, other hulls'
 * planes) only to learn that every leaf along the move is empty for its hull. So each world
 * block keeps, per hull, a grid of AL_OPEN_CELLS³ cells over its grid cell: a cell is open
 * when every leaf of the block's onion tree that the cell, grown by OPEN_MARGIN, reaches is
 * empty for the hull. A move whose box lies in the block and in open cells only meets empty
 * leaves there, whatever its direction: the trace says so without a descent.
 *
 * The grid comes from the block's own onion tree (not from the brushes), so it says what the
 * descent would, a block shares it with the worlds that share its trees, and a loaded world
 * computes it again. The margin is far wider than the trace's band (TRACE_EPSILON, trace.c):
 * a point of an open cell lies more than OPEN_MARGIN from every plane the descent would
 * cross on the way to a solid leaf.
 */
#include "al-parallel.h"
#include "world/world-internal.h"

#include <stdlib.h>
#include <string.h>

#define OPEN_MARGIN 0.01

typedef struct open_work {
    const al_tree *tree;
    al_open_row *rows;
    double origin[3];
    double cell;
} open_work;

/* Closes the cells [LO, HI] for the hulls of HULLS. */
static void close_cells(open_work *w, uint32_t hulls, const int lo[3], const int hi[3])
{
    al_open_row mask = al_open_span((unsigned) lo[0], (unsigned) hi[0]);
    for (int h = 0; hulls; h++, hulls >>= 1) {
        if (!(hulls & 1)) continue;
        al_open_row *rows = w->rows + (size_t) h * AL_OPEN_CELLS * AL_OPEN_CELLS;
        for (int z = lo[2]; z <= hi[2]; z++)
            for (int y = lo[1]; y <= hi[1]; y++) rows[z * AL_OPEN_CELLS + y] &= ~mask;
    }
}

/* The least and greatest distance of the box [LO, HI] from N's plane. */
static inline void box_distances(const al_node *n, const double lo[3], const double hi[3],
                                 double *dmin, double *dmax)
{
    *dmin = *dmax = -n->dist;
    for (int k = 0; k < 3; k++) {
        double na = n->normal[k] * lo[k], nb = n->normal[k] * hi[k];
        *dmin += na < nb ? na : nb;
        *dmax += na < nb ? nb : na;
    }
}

static void mark(open_work *w, int32_t code, uint32_t pending, const int lo[3], const int hi[3]);

/* The range [LO, HI] split by N's plane, normal +-1 on AXIS: runs of layers across AXIS
 * wholly in front, wholly behind, or met by the plane (grown by OPEN_MARGIN), each marked
 * under the child or children it reaches. */
static void split_axial(open_work *w, const al_node *n, int axis, uint32_t pending, const int lo[3],
                        const int hi[3])
{
    double sign = n->normal[axis];
    int first = lo[axis];
    int side = -1;
    for (int i = lo[axis]; i <= hi[axis] + 1; i++) {
        int here = 3; /* past the end */
        if (i <= hi[axis]) {
            double a = sign * (w->origin[axis] + i * w->cell - OPEN_MARGIN) - n->dist;
            double b = sign * (w->origin[axis] + (i + 1) * w->cell + OPEN_MARGIN) - n->dist;
            double dmin = a < b ? a : b, dmax = a < b ? b : a;
            here = dmin > 0 ? 0 : dmax < 0 ? 1 : 2;
        }
        if (here == side) continue;
        if (side >= 0) {
            int run_lo[3] = {lo[0], lo[1], lo[2]}, run_hi[3] = {hi[0], hi[1], hi[2]};
            run_lo[axis] = first;
            run_hi[axis] = i - 1;
            if (side != 1) mark(w, n->child[0], pending, run_lo, run_hi);
            if (side != 0) mark(w, n->child[1], pending, run_lo, run_hi);
        }
        side = here;
        first = i;
    }
}

/* Closes, for the hulls of PENDING, the cells of [LO, HI] that reach a leaf under CODE solid
 * for them. Where a node's plane passes through the range's box (grown by OPEN_MARGIN),
 * an axial plane splits it in layers (split_axial); by another the range is halved and each
 * half goes on from that node, and a single cell goes down both sides. */
/* PENDING without the hulls for which every cell of [LO, HI] is closed already: nothing
 * below can change them. Only small ranges are looked at (a big one is rarely all closed). */
static uint32_t still_open(const open_work *w, uint32_t pending, const int lo[3], const int hi[3])
{
    if ((hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1) > 16) return pending;
    al_open_row mask = al_open_span((unsigned) lo[0], (unsigned) hi[0]);
    uint32_t left = pending;
    for (int h = 0; left; h++, left >>= 1) {
        if (!(left & 1)) continue;
        const al_open_row *rows = w->rows + (size_t) h * AL_OPEN_CELLS * AL_OPEN_CELLS;
        al_open_row any = 0;
        for (int z = lo[2]; z <= hi[2]; z++)
            for (int y = lo[1]; y <= hi[1]; y++) any |= rows[z * AL_OPEN_CELLS + y];
        if (!(any & mask)) pending &= ~(1u << h);
    }
    return pending;
}

static void mark(open_work *w, int32_t code, uint32_t pending, const int lo[3], const int hi[3])
{
    pending = still_open(w, pending, lo, hi);
    if (!pending) return;
    /* The range's box, grown by the margin. */
    double box_lo[3], box_hi[3];
    for (int k = 0; k < 3; k++) {
        box_lo[k] = w->origin[k] + lo[k] * w->cell - OPEN_MARGIN;
        box_hi[k] = w->origin[k] + (hi[k] + 1) * w->cell + OPEN_MARGIN;
    }
    for (;;) {
        if (code < 0) {
            uint32_t solid = w->tree->leaves[al_tree_leaf_index(code)] & pending;
            if (solid) close_cells(w, solid, lo, hi);
            return;
        }
        const al_node *n = &w->tree->nodes[code];
        uint32_t decided = (n->solid_mask | n->empty_mask) & pending;
        if (decided) {
            if (n->solid_mask & decided) close_cells(w, n->solid_mask & decided, lo, hi);
            pending &= ~decided;
            if (!pending) return;
        }
        double dmin, dmax;
        box_distances(n, box_lo, box_hi, &dmin, &dmax);
        if (dmin > 0) {
            code = n->child[0];
            continue;
        }
        if (dmax < 0) {
            code = n->child[1];
            continue;
        }
        /* An axial plane (most are): the cells in front, those behind, and those whose grown
         * box it passes through, a layer or two, which go down both sides whole. (Halving
         * would break every grid-aligned plane's layer down to single cells.) */
        int axial = -1;
        for (int k = 0; k < 3; k++)
            if (n->normal[(k + 1) % 3] == 0 && n->normal[(k + 2) % 3] == 0) axial = k;
        if (axial >= 0) {
            split_axial(w, n, axial, pending, lo, hi);
            return;
        }
        int axis = 0;
        for (int k = 1; k < 3; k++)
            if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
        if (hi[axis] > lo[axis]) {
            int mid = (lo[axis] + hi[axis]) / 2;
            int half_hi[3] = {hi[0], hi[1], hi[2]}, half_lo[3] = {lo[0], lo[1], lo[2]};
            half_hi[axis] = mid;
            half_lo[axis] = mid + 1;
            mark(w, code, pending, lo, half_hi);
            mark(w, code, pending, half_lo, hi);
            return;
        }
        mark(w, n->child[0], pending, lo, hi);
        code = n->child[1];
    }
}

/* The node of TREE where the box [LO, HI] first meets a plane (lying on it is not meeting
 * it), or the leaf holding it. A segment whose box, grown by the trace's band, lies in [LO,
 * HI] goes the same way down to there: its ends are farther than the band from every plane
 * passed. */
static int32_t start_node(const al_tree *tree, const double lo[3], const double hi[3])
{
    int32_t code = tree->root;
    while (code >= 0) {
        const al_node *n = &tree->nodes[code];
        double dmin, dmax;
        box_distances(n, lo, hi, &dmin, &dmax);
        if (dmin >= 0)
            code = n->child[0];
        else if (dmax <= 0)
            code = n->child[1];
        else
            break;
    }
    return code;
}

/* The start nodes of BLOCK's eighths, quarters and halves, in that order. */
static void fill_starts(const al_block *block, const double cell_mins[3], double block_size,
                        int32_t *starts)
{
    for (int side = 8; side >= 2; starts += side * side * side, side /= 2)
        for (int z = 0; z < side; z++)
            for (int y = 0; y < side; y++)
                for (int x = 0; x < side; x++) {
                    int c[3] = {x, y, z};
                    double lo[3], hi[3];
                    for (int k = 0; k < 3; k++) {
                        lo[k] = cell_mins[k] + c[k] * block_size / side;
                        hi[k] = cell_mins[k] + (c[k] + 1) * block_size / side;
                    }
                    starts[(z * side + y) * side + x] = start_node(&block->onion, lo, hi);
                }
}

int al_block_open_cells(al_block *block, int hull_count, const double cell_mins[3],
                        double block_size, const al_block *prev, const al_subcell_set *dirty)
{
    block->open = NULL;
    block->open_starts = NULL;
    if (!block->onion.leaves) return 0; /* no tree: nothing is known open */
    size_t rows_count = (size_t) hull_count * AL_OPEN_CELLS * AL_OPEN_CELLS;
    al_open_row *rows = malloc(rows_count * sizeof *rows + AL_OPEN_STARTS * sizeof(int32_t));
    if (!rows) return -1;
    int32_t *starts = (int32_t *) (rows + rows_count);
    open_work w = {.tree = &block->onion, .rows = rows, .cell = block_size / AL_OPEN_CELLS};
    for (int k = 0; k < 3; k++) w.origin[k] = cell_mins[k];
    uint32_t hulls = (uint32_t) ((UINT64_C(1) << hull_count) - 1);
    int n = block->subcells;
    if (prev && prev->open && dirty && n > 1 && AL_OPEN_CELLS % n == 0) {
        /* A cell's answer depends only on the leaves its grown box reaches: those of the
         * sub-cells an edit did not touch are the same. So only the cells of rebuilt
         * sub-cells and the cells around them (whose grown boxes reach in) are found
         * again; the rest are the block's predecessor's. */
        memcpy(rows, prev->open, rows_count * sizeof *rows);
        int per = AL_OPEN_CELLS / n, count = n * n * n;
        for (int pass = 0; pass < 2; pass++)
            for (int s = 0; s < count; s++) {
                if (!al_subcell_set_has(dirty, s)) continue;
                int c[3] = {s % n, s / n % n, s / (n * n)}, lo[3], hi[3];
                for (int k = 0; k < 3; k++) {
                    lo[k] = c[k] * per > 0 ? c[k] * per - 1 : 0;
                    hi[k] = (c[k] + 1) * per < AL_OPEN_CELLS ? (c[k] + 1) * per : AL_OPEN_CELLS - 1;
                }
                if (pass == 0) /* open them all first: ranges overlap */
                    for (int h = 0; h < hull_count; h++)
                        for (int z = lo[2]; z <= hi[2]; z++)
                            for (int y = lo[1]; y <= hi[1]; y++)
                                rows[((size_t) h * AL_OPEN_CELLS + (size_t) z) * AL_OPEN_CELLS +
                                     (size_t) y] |=
                                    al_open_span((unsigned) lo[0], (unsigned) hi[0]);
                else
                    mark(&w, block->onion.root, hulls, lo, hi);
            }
    } else {
        for (size_t i = 0; i < rows_count; i++) rows[i] = AL_OPEN_ALL;
        int lo[3] = {0, 0, 0}, hi[3] = {AL_OPEN_CELLS - 1, AL_OPEN_CELLS - 1, AL_OPEN_CELLS - 1};
        mark(&w, block->onion.root, hulls, lo, hi);
    }
    fill_starts(block, cell_mins, block_size, starts);
    block->open = rows;
    block->open_starts = starts;
    return 0;
}

typedef struct model_job {
    al_model *model;
    int hull_count;
    double block_size;
    int failed;
} model_job;

static void block_open_cells(void *context, int b, int worker)
{
    (void) worker;
    model_job *job = context;
    al_model *m = job->model;
    al_block *block = &m->blocks[b];
    int plane = m->grid_dims[0] * m->grid_dims[1];
    int c[3] = {b % plane % m->grid_dims[0], b % plane / m->grid_dims[0], b / plane};
    for (int k = 0; k < 3; k++) block->cell_mins[k] = (m->grid_origin[k] + c[k]) * job->block_size;
    if (al_block_open_cells(block, job->hull_count, block->cell_mins, job->block_size, NULL, NULL) <
        0)
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
}

bool al_model_open_cells(al_model *m, int hull_count, double block_size)
{
    model_job job = {.model = m, .hull_count = hull_count, .block_size = block_size};
    al_parallel_for(m->block_count, 0, block_open_cells, &job);
    return !job.failed;
}

bool al_model_index_open(al_model *m)
{
    free(m->open_rows);
    free(m->open_starts);
    m->open_rows = NULL;
    m->open_starts = NULL;
    bool any = false;
    for (int b = 0; b < m->block_count; b++) any |= m->blocks[b].open != NULL;
    if (!any) return true;
    m->open_rows = malloc((size_t) m->block_count * sizeof *m->open_rows);
    m->open_starts = malloc((size_t) m->block_count * AL_OPEN_STARTS * sizeof *m->open_starts);
    if (!m->open_rows || !m->open_starts) return false;
    /* The start nodes side by side: a trace reads one, and no block's record. */
    for (int b = 0; b < m->block_count; b++) {
        const al_block *block = &m->blocks[b];
        m->open_rows[b] = block->open;
        int32_t *starts = m->open_starts + (size_t) b * AL_OPEN_STARTS;
        if (block->open_starts)
            memcpy(starts, block->open_starts, AL_OPEN_STARTS * sizeof *starts);
        else
            for (int i = 0; i < AL_OPEN_STARTS; i++) starts[i] = AL_NO_START;
    }
    for (int k = 0; k < 3; k++) m->open_limit[k] = (double) m->grid_dims[k] * AL_OPEN_CELLS;
    return true;
}
