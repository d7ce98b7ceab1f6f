/* The dynamic sphere tree (al-spheretree.h): the agents' broadphase.
 *
 * Entry points: al_sphere_tree_insert / _remove / _move / _rebuild keep the tree,
 * al_sphere_tree_pairs walks it against itself, _query and _ray walk it against a sphere
 * and a ray.
 *
 * Workload: thousands of agents, every one moved once per 60 Hz physics step, then every
 * overlapping pair found, all on one core in a small part of the step's 16 ms; a few rays
 * (picking) and sphere queries now and then. Agents move a few units per step and touch a
 * few neighbours at most.
 *
 * The tree follows the seed articles (the "hungry sphere tree" thread and the Pathfinder
 * scene-collision note):
 *   - insertion goes down from the root to the child whose sphere melded with the new one
 *     would be smallest, and replaces the leaf it reaches with a new inner node over both
 *     (see meld_measure for how "smallest" is measured). The article grows each sphere on
 *     the way down (node = meld(node, new)); here the spheres of the path are recomputed
 *     from their two children on the way back up instead, up to the first that already
 *     encloses its new child, which leaves the same spheres unchanged and makes the changed
 *     ones as tight as a meld can be;
 *   - removal puts the leaf's sibling in its parent's place and recomputes the spheres
 *     upward from there, stopping at the first that does not change (see detach_leaf for
 *     what a change is);
 *   - a move keeps the tree as it is while the leaf's sphere stays inside its parent's,
 *     and otherwise removes the leaf and inserts it again;
 *   - al_sphere_tree_rebuild is the thread's top-down build, for bulk loads.
 * The "fat margin" is ours: a leaf keeps the object's sphere grown by the tree's margin
 * and is updated only when the real sphere leaves it. With margin 0 a leaf is its object's
 * sphere and a meld is tangent to both its children, so nearly any motion away from the
 * sibling leaves the parent and re-inserts the leaf, every step; a margin of a few steps'
 * travel makes re-insertion the exception, for looser spheres to prune with (allium-bench
 * spheretree measures the trade). Pairs and queries test the real spheres at the leaves,
 * so the answers are exact whatever the margin.
 *
 * Layout (Quake's cm_* habit): nodes, inner or leaf, are entries of one array linked by
 * integer indices, with a free list; a leaf's index is the object's handle. Each node is
 * one 64-byte cache line with everything the walks and the updates read: its links, its
 * sphere and copies of its two children's spheres, as floats rounded outward. Expanding a
 * pair of nodes thus reads two lines and tests the four pairs of their children (side by
 * side in vector registers) without fetching the children; a refit reads one line per
 * level. The objects' own spheres, in doubles, sit in a parallel array, read by the tests
 * of two leaves, which are exact. Pairs are found by taking every inner node and
 * descending its two subtrees against each other at once, so two subtrees far apart cost
 * one test: no per-object query.
 *
 * Rounding: a node's float sphere is computed in doubles (the meld of its children's) and
 * rounded outward by more than the rounding of the copy and of the walk's float test can
 * take away (round_out), so a node encloses its children exactly and the walk never prunes
 * a pair of objects whose spheres overlap. Containment tests keep a little room for their
 * own rounding (sphere_inside).
 */
#include "al-spheretree.h"

#include "al-vec3.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* child[0] of a leaf and of a free node. */
enum { NODE_LEAF = -1, NODE_FREE = -2 };

/* Coordinates and radii beyond this are refused: their float copies would overflow. */
#define LARGEST_COORDINATE 1e30

/* A sphere as the nodes keep it: x, y, z, radius, rounded outward (see round_out). */
typedef float st_bound[4];

typedef struct st_node {
    st_bound bound[2]; /* inner: copies of the children's spheres, for the walks */
    st_bound sphere;   /* inner: encloses both children's; leaf: the object's fat sphere */
    int child[2];      /* inner: node indices; leaf: NODE_LEAF; free: NODE_FREE */
    int parent;        /* inner node, -1 for the root; free: the next free node, -1 none */
    int user;          /* leaf: the object's value */
} st_node;

_Static_assert(sizeof(st_node) == 64, "a node is one cache line");

struct al_sphere_tree {
    st_node *nodes;  /* owned, 64-byte aligned; capacity entries, [0, used) handed out */
    al_sphere *real; /* owned; capacity entries, the object's own sphere at each leaf */
    int capacity, used;
    int free_list, free_count; /* free nodes below used, chained through parent */
    int root;                  /* -1: empty */
    int count;                 /* objects (leaves) */
    double margin;             /* units a leaf's sphere is grown by */
};

/* Stack entries the walks keep on the C stack before they need the heap. */
#define LOCAL_ENTRIES 256

static bool is_sphere(const al_sphere *s)
{
    if (!s || !(s->radius >= 0 && s->radius <= LARGEST_COORDINATE)) return false;
    for (int k = 0; k < 3; k++)
        if (!(fabs(s->center[k]) <= LARGEST_COORDINATE)) return false;
    return true;
}

static al_sphere widen(const st_bound b)
{
    return (al_sphere){{b[0], b[1], b[2]}, b[3]};
}

/* S as floats that enclose it: the centre rounded (each coordinate off by at most 2^-24 of
 * itself, so the centre by at most 2^-24 of the coordinates' sum), the radius grown by
 * twice that and by 2^-20 of itself, so that rounding it to a float (at most 2^-24 of it)
 * leaves it larger than the exact one. The 2^-20 is the room the walks' float test needs:
 * its arithmetic is off by a few 2^-24 of the distances it compares. */
static void round_out(const al_sphere *s, st_bound out)
{
    double size = 0;
    for (int k = 0; k < 3; k++) {
        out[k] = (float) s->center[k];
        size += fabs(s->center[k]);
    }
    out[3] = (float) (s->radius * (1 + 0x1p-20) + size * 0x1p-23);
}

static double distance2(const double a[3], const double b[3])
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* True if INNER lies inside OUTER, with room for the rounding of this test: a few ulps
 * of the coordinates, far less than round_out's room. */
static bool sphere_inside(const al_sphere *inner, const al_sphere *outer)
{
    double size = fabs(outer->center[0]) + fabs(outer->center[1]) + fabs(outer->center[2]);
    double room = outer->radius - inner->radius - (size + outer->radius) * 0x1p-40;
    return room >= 0 && distance2(inner->center, outer->center) <= room * room;
}

/* The pruning test of the sphere query: spheres that touch (or overlap) may hold objects
 * that overlap. */
static bool spheres_touch(const al_sphere *a, const al_sphere *b)
{
    double sum = a->radius + b->radius;
    return distance2(a->center, b->center) <= sum * sum;
}

/* The same on the nodes' floats, for the pair walk. */
static inline bool bounds_touch(const st_bound a, const st_bound b)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2], sum = a[3] + b[3];
    return dx * dx + dy * dy + dz * dz <= sum * sum;
}

bool al_spheres_overlap(const al_sphere *a, const al_sphere *b)
{
    double sum = a->radius + b->radius;
    return distance2(a->center, b->center) < sum * sum;
}

void al_sphere_meld(const al_sphere *a, const al_sphere *b, al_sphere *out)
{
    double d[3];
    al_sub(b->center, a->center, d);
    double dist = al_length(d);
    if (dist + b->radius <= a->radius) {
        *out = *a;
        return;
    }
    if (dist + a->radius <= b->radius) {
        *out = *b;
        return;
    }
    /* Neither contains the other, so dist > 0: the diameter runs along the line of the
     * centres from A's far side to B's far side. */
    double radius = 0.5 * (dist + a->radius + b->radius);
    al_madd(a->center, d, (radius - a->radius) / dist, out->center);
    out->radius = radius;
}

/* The insertion's measure of melding S into a child whose sphere is C: the thread's
 * "extended line", the distance of the centres plus both radii, which is the meld's
 * diameter whenever neither sphere contains the other. Where S lies inside C's sphere the
 * meld is C itself, and choosing by it would send S into the smaller child wherever S
 * lies in it: as inner spheres overlap widely (a sphere over half a level reaches far into
 * the other half), a re-inserted agent would end up paired with a leaf across the level
 * and its ancestors would swell. Measured with 10,000 moving agents (allium-bench
 * spheretree), the meld itself made the pair walk take over 100 ms a step within a few
 * hundred steps, this measure about 1 ms, steadily. */
static float meld_measure(const st_bound c, const st_bound s)
{
    float dx = c[0] - s[0], dy = c[1] - s[1], dz = c[2] - s[2];
    return sqrtf(dx * dx + dy * dy + dz * dz) + c[3] + s[3];
}

/* The sphere over A and B as a node keeps it: their meld, rounded outward. */
static void enclose(const st_bound a, const st_bound b, st_bound out)
{
    al_sphere wa = widen(a), wb = widen(b), m;
    al_sphere_meld(&wa, &wb, &m);
    round_out(&m, out);
}

static bool same_bound(const st_bound a, const st_bound b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static bool is_leaf(const al_sphere_tree *t, int i)
{
    return t->nodes[i].child[0] == NODE_LEAF;
}

static bool is_object(const al_sphere_tree *t, int handle)
{
    return t && handle >= 0 && handle < t->used && is_leaf(t, handle);
}

/* --- node storage ---------------------------------------------------------------------- */

/* Makes sure EXTRA nodes can be taken without allocating. False if memory runs out (the
 * tree is unchanged: an array that did grow is only larger). */
static bool reserve_nodes(al_sphere_tree *t, int extra)
{
    if (t->free_count + (t->capacity - t->used) >= extra) return true;
    if (t->capacity > INT_MAX / 4) return false;
    int capacity = t->capacity ? t->capacity * 2 : 64;
    al_sphere *real = realloc(t->real, (size_t) capacity * sizeof *real);
    if (!real) return false;
    t->real = real;
    st_node *nodes = aligned_alloc(64, (size_t) capacity * sizeof *nodes);
    if (!nodes) return false;
    if (t->used) memcpy(nodes, t->nodes, (size_t) t->used * sizeof *nodes);
    free(t->nodes);
    t->nodes = nodes;
    t->capacity = capacity;
    return true;
}

/* A node from the free list or the unused tail; reserve_nodes must have made room. */
static int take_node(al_sphere_tree *t)
{
    int i = t->free_list;
    if (i >= 0) {
        t->free_list = t->nodes[i].parent;
        t->free_count--;
    } else {
        i = t->used++;
    }
    memset(&t->nodes[i], 0, sizeof t->nodes[i]);
    return i;
}

static void give_back_node(al_sphere_tree *t, int i)
{
    st_node *n = &t->nodes[i];
    n->child[0] = n->child[1] = NODE_FREE;
    n->parent = t->free_list;
    t->free_list = i;
    t->free_count++;
}

/* --- structure ------------------------------------------------------------------------- */

/* Copies node I's sphere into its parent's line, where the walks read it. Called whenever
 * the sphere or the parent changes. */
static void publish(al_sphere_tree *t, int i)
{
    int p = t->nodes[i].parent;
    if (p < 0) return;
    st_node *parent = &t->nodes[p];
    memcpy(parent->bound[parent->child[1] == i], t->nodes[i].sphere, sizeof(st_bound));
}

/* Recomputes node I's sphere from its children's; false if it came out unchanged. */
static bool refit(al_sphere_tree *t, int i)
{
    st_node *n = &t->nodes[i];
    st_bound s;
    enclose(n->bound[0], n->bound[1], s);
    if (same_bound(s, n->sphere)) return false;
    memcpy(n->sphere, s, sizeof s);
    publish(t, i);
    return true;
}

/* Puts NEW in OLD's place under OLD's parent (or as the root); the caller publishes NEW's
 * sphere once it is right. */
static void relink(al_sphere_tree *t, int old, int new)
{
    int p = t->nodes[old].parent;
    t->nodes[new].parent = p;
    if (p < 0)
        t->root = new;
    else
        t->nodes[p].child[t->nodes[p].child[1] == old] = new;
}

/* Makes A and B the children of the inner node I, with I's sphere over theirs. */
static void adopt(al_sphere_tree *t, int i, int a, int b)
{
    st_node *n = &t->nodes[i];
    n->child[0] = a;
    n->child[1] = b;
    n->user = -1;
    t->nodes[a].parent = t->nodes[b].parent = i;
    memcpy(n->bound[0], t->nodes[a].sphere, sizeof(st_bound));
    memcpy(n->bound[1], t->nodes[b].sphere, sizeof(st_bound));
    enclose(n->bound[0], n->bound[1], n->sphere);
}

/* Links the leaf LEAF (its sphere set, not in the tree) into the tree: down from the root,
 * at each inner node to the child with the smaller meld_measure, then a new inner node
 * over the leaf reached and LEAF. The article grows every node of the path on the way
 * down (node = meld(node, new)), which leaves a node that already held the new sphere as
 * it was; likewise the path is refit from the bottom only up to the first node that
 * already encloses its new child, each node recomputed from its children on the way.
 * Takes one node, which the caller has made sure is there. */
static void attach_leaf(al_sphere_tree *t, int leaf)
{
    const float *s = t->nodes[leaf].sphere;
    if (t->root < 0) {
        t->root = leaf;
        t->nodes[leaf].parent = -1;
        return;
    }
    int sibling = t->root;
    while (!is_leaf(t, sibling)) {
        const st_node *n = &t->nodes[sibling];
        sibling = n->child[meld_measure(n->bound[0], s) < meld_measure(n->bound[1], s) ? 0 : 1];
    }
    int inner = take_node(t);
    relink(t, sibling, inner);
    adopt(t, inner, sibling, leaf);
    publish(t, inner);
    for (int child = inner, i = t->nodes[inner].parent; i >= 0; child = i, i = t->nodes[i].parent) {
        al_sphere c = widen(t->nodes[child].sphere), n = widen(t->nodes[i].sphere);
        if (sphere_inside(&c, &n)) break;
        refit(t, i);
    }
}

/* Unlinks the leaf LEAF: its sibling takes its parent's place, the parent node is freed,
 * and the spheres above are recomputed up to the first that does not change. LEAF itself
 * is left as it is.
 *
 * "Does not change" is taken to mean: still encloses its changed child, and would shrink
 * by less than a quarter of the margin. A removal shrinks the spheres above it by about
 * half as much at each level, so an exact comparison walks every removal up to the root,
 * half the cost of a re-insertion (allium-bench spheretree); a sphere a little larger
 * than it could be is still right, and the leaves are looser than that anyway. With
 * margin 0 the comparison is exact. */
static void detach_leaf(al_sphere_tree *t, int leaf)
{
    int p = t->nodes[leaf].parent;
    if (p < 0) {
        t->root = -1;
        return;
    }
    const st_node *parent = &t->nodes[p];
    int sibling = parent->child[parent->child[0] == leaf];
    int above = parent->parent;
    relink(t, p, sibling);
    publish(t, sibling);
    give_back_node(t, p);
    double tolerance = 0.25 * t->margin;
    for (int child = sibling, i = above; i >= 0; child = i, i = t->nodes[i].parent) {
        st_node *n = &t->nodes[i];
        st_bound s;
        enclose(n->bound[0], n->bound[1], s);
        if (same_bound(s, n->sphere)) return;
        al_sphere now = widen(s), before = widen(n->sphere),
                  changed = widen(t->nodes[child].sphere);
        if (before.radius - now.radius < tolerance && sphere_inside(&changed, &before)) return;
        memcpy(n->sphere, s, sizeof s);
        publish(t, i);
    }
}

/* Sets the leaf sphere of object I for its sphere S: S grown by the margin. */
static void set_fat_sphere(al_sphere_tree *t, int i, const al_sphere *s)
{
    al_sphere fat = *s;
    fat.radius += t->margin;
    round_out(&fat, t->nodes[i].sphere);
    publish(t, i);
}

/* --- public: building ------------------------------------------------------------------ */

al_sphere_tree *al_sphere_tree_create(double margin)
{
    if (!(margin >= 0 && margin <= LARGEST_COORDINATE)) return NULL;
    al_sphere_tree *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->free_list = -1;
    t->root = -1;
    t->margin = margin;
    return t;
}

void al_sphere_tree_destroy(al_sphere_tree *tree)
{
    if (!tree) return;
    free(tree->nodes);
    free(tree->real);
    free(tree);
}

int al_sphere_tree_insert(al_sphere_tree *tree, const al_sphere *s, int user)
{
    /* A leaf and, unless the tree is empty, the inner node over it. */
    if (!tree || !is_sphere(s) || !reserve_nodes(tree, 2)) return -1;
    int leaf = take_node(tree);
    st_node *n = &tree->nodes[leaf];
    n->child[0] = n->child[1] = NODE_LEAF;
    n->parent = -1;
    n->user = user;
    tree->real[leaf] = *s;
    set_fat_sphere(tree, leaf, s);
    attach_leaf(tree, leaf);
    tree->count++;
    return leaf;
}

bool al_sphere_tree_remove(al_sphere_tree *tree, int handle)
{
    if (!is_object(tree, handle)) return false;
    detach_leaf(tree, handle);
    give_back_node(tree, handle);
    tree->count--;
    return true;
}

bool al_sphere_tree_move(al_sphere_tree *tree, int handle, const al_sphere *s)
{
    if (!is_object(tree, handle) || !is_sphere(s)) return false;
    tree->real[handle] = *s;
    st_node *leaf = &tree->nodes[handle];
    al_sphere fat = widen(leaf->sphere);
    if (sphere_inside(s, &fat)) return false;
    set_fat_sphere(tree, handle, s);
    int p = leaf->parent;
    if (p < 0) return false;
    fat = widen(leaf->sphere);
    al_sphere parent = widen(tree->nodes[p].sphere);
    if (sphere_inside(&fat, &parent)) return false;
    /* Detaching frees the parent node, which attaching takes again: no allocation. */
    detach_leaf(tree, handle);
    attach_leaf(tree, handle);
    return true;
}

int al_sphere_tree_count(const al_sphere_tree *tree)
{
    return tree ? tree->count : 0;
}

bool al_sphere_tree_get(const al_sphere_tree *tree, int handle, al_sphere *s, int *user)
{
    if (!is_object(tree, handle)) return false;
    if (s) *s = tree->real[handle];
    if (user) *user = tree->nodes[handle].user;
    return true;
}

/* --- the top-down build ----------------------------------------------------------------- */

/* Reorders LEAVES[0..N) around the K-th by centre coordinate AXIS (quickselect): smaller
 * before it, larger after. */
static void select_by_axis(const al_sphere_tree *t, int *leaves, int n, int k, int axis)
{
    const al_sphere *real = t->real;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = real[leaves[lo + (hi - lo) / 2]].center[axis];
        int i = lo, j = hi;
        while (i <= j) {
            while (real[leaves[i]].center[axis] < pivot) i++;
            while (real[leaves[j]].center[axis] > pivot) j--;
            if (i <= j) {
                int x = leaves[i];
                leaves[i++] = leaves[j];
                leaves[j--] = x;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The subtree over LEAVES[0..N) (N >= 1), split at the median of the centres along their
 * longest extent, so its depth is log2(N). Takes its inner nodes from the free list. */
static int build_top_down(al_sphere_tree *t, int *leaves, int n)
{
    if (n == 1) return leaves[0];
    double lo[3], hi[3];
    al_bounds_clear(lo, hi);
    for (int i = 0; i < n; i++) al_bounds_add(t->real[leaves[i]].center, lo, hi);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    int half = n / 2;
    select_by_axis(t, leaves, n, half, axis);
    int a = build_top_down(t, leaves, half);
    int b = build_top_down(t, leaves + half, n - half);
    int i = take_node(t);
    adopt(t, i, a, b);
    return i;
}

al_status al_sphere_tree_rebuild(al_sphere_tree *tree)
{
    if (!tree || tree->count < 3) return AL_OK;
    int *leaves = malloc((size_t) tree->count * sizeof *leaves);
    if (!leaves) return AL_ERR_NOMEM;
    /* Every inner node goes back to the free list, the lowest index last so that the build
     * takes them in ascending order; the leaves, and so the handles, stay where they are. */
    int n = 0;
    for (int i = tree->used - 1; i >= 0; i--) {
        if (is_leaf(tree, i))
            leaves[n++] = i;
        else if (tree->nodes[i].child[0] >= 0)
            give_back_node(tree, i);
    }
    tree->root = build_top_down(tree, leaves, n);
    tree->nodes[tree->root].parent = -1;
    free(leaves);
    return AL_OK;
}

/* --- walks ----------------------------------------------------------------------------- */

/* A growable array that starts in a caller's buffer (on the C stack) and moves to the
 * heap only when that fills up. */
typedef struct scratch {
    void *items;
    int count, capacity;
    size_t item_size;
    void *heap; /* owned; NULL while ITEMS is the caller's buffer */
} scratch;

static void scratch_init(scratch *s, void *buffer, int capacity, size_t item_size)
{
    *s = (scratch){.items = buffer, .capacity = capacity, .item_size = item_size};
}

/* Room for EXTRA more items; false if memory runs out. */
static bool scratch_room(scratch *s, int extra)
{
    if (s->capacity - s->count >= extra) return true;
    int capacity = s->capacity;
    while (capacity - s->count < extra) {
        if (capacity > INT_MAX / 4) return false;
        capacity *= 2;
    }
    void *heap = realloc(s->heap, (size_t) capacity * s->item_size);
    if (!heap) return false;
    if (!s->heap) memcpy(heap, s->items, (size_t) s->count * s->item_size);
    s->items = s->heap = heap;
    s->capacity = capacity;
    return true;
}

static void scratch_free(scratch *s)
{
    free(s->heap);
}

/* The next node after the subtree of I in a depth-first walk (the right sibling of I or of
 * its nearest ancestor that has one), or -1 at the end. */
static int next_subtree(const al_sphere_tree *t, int i)
{
    for (;;) {
        int p = t->nodes[i].parent;
        if (p < 0) return -1;
        if (t->nodes[p].child[0] == i) return t->nodes[p].child[1];
        i = p;
    }
}

typedef struct node_pair {
    int a, b;
} node_pair;

/* Pairs the pair walk expands at a time. */
#define PAIR_BATCH 256

typedef struct pair_walk {
    const al_sphere_tree *tree;
    scratch pending; /* of node_pair: pairs of nodes whose spheres touch, to expand */
    scratch next;    /* of node_pair: what a batch expands into */
    al_sphere_pair_fn fn;
    void *ctx;
} pair_walk;

/* Nodes A and B (spheres SA and SB) meet: the pair is appended to TO if their spheres
 * touch. Written without a branch on the test, whose outcome no predictor guesses: the
 * pair is always written and the count grows by the test's result. The caller has made
 * room for it. */
static inline void meet(scratch *to, int a, const st_bound sa, int b, const st_bound sb)
{
    ((node_pair *) to->items)[to->count] = (node_pair){a, b};
    to->count += bounds_touch(sa, sb);
}

typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

/* The four pairs of children of the inner nodes NA and NB meet, tested side by side in
 * one vector each of x, y, z and radius (a0-b0, a0-b1, a1-b0, a1-b1): the same float test
 * as bounds_touch, in a third of the instructions. */
static inline void meet_children(scratch *to, const st_node *na, const st_node *nb)
{
    v4f a0, a1, b0, b1;
    memcpy(&a0, na->bound[0], sizeof a0);
    memcpy(&a1, na->bound[1], sizeof a1);
    memcpy(&b0, nb->bound[0], sizeof b0);
    memcpy(&b1, nb->bound[1], sizeof b1);
    v4f ax = __builtin_shufflevector(a0, a1, 0, 0, 4, 4);
    v4f ay = __builtin_shufflevector(a0, a1, 1, 1, 5, 5);
    v4f az = __builtin_shufflevector(a0, a1, 2, 2, 6, 6);
    v4f ar = __builtin_shufflevector(a0, a1, 3, 3, 7, 7);
    v4f bx = __builtin_shufflevector(b0, b1, 0, 4, 0, 4);
    v4f by = __builtin_shufflevector(b0, b1, 1, 5, 1, 5);
    v4f bz = __builtin_shufflevector(b0, b1, 2, 6, 2, 6);
    v4f br = __builtin_shufflevector(b0, b1, 3, 7, 3, 7);
    v4f dx = ax - bx, dy = ay - by, dz = az - bz, sum = ar + br;
    v4i touch = dx * dx + dy * dy + dz * dz <= sum * sum;
    node_pair *items = to->items;
    int count = to->count;
    items[count] = (node_pair){na->child[0], nb->child[0]};
    count -= touch[0];
    items[count] = (node_pair){na->child[0], nb->child[1]};
    count -= touch[1];
    items[count] = (node_pair){na->child[1], nb->child[0]};
    count -= touch[2];
    items[count] = (node_pair){na->child[1], nb->child[1]};
    count -= touch[3];
    to->count = count;
}

/* Expands the pending pairs until none is left: two leaves are tested (their real spheres)
 * and reported, otherwise the children of each inner node of the pair meet the other node
 * or its children. A batch of pairs at a time, so that the nodes of one pair are fetched
 * while those of the pair before are tested: taking one pair at a time from a stack made
 * every fetch wait for the tests before it, which took 60% longer. The batches come off
 * the top of the pending pairs and their expansions go back on top, so the memory stays
 * within a few batches per level of the tree even when nearly everything touches. False
 * if memory runs out. */
static bool descend_pairs(pair_walk *w)
{
    const st_node *nodes = w->tree->nodes;
    while (w->pending.count > 0) {
        int take = w->pending.count < PAIR_BATCH ? w->pending.count : PAIR_BATCH;
        w->pending.count -= take;
        const node_pair *batch = (const node_pair *) w->pending.items + w->pending.count;
        w->next.count = 0;
        for (int k = 0; k < take; k++) {
            node_pair p = batch[k];
            const st_node *na = &nodes[p.a], *nb = &nodes[p.b];
            bool a_inner = na->child[0] >= 0, b_inner = nb->child[0] >= 0;
            if (a_inner && b_inner) {
                meet_children(&w->next, na, nb);
            } else if (a_inner) {
                meet(&w->next, na->child[0], na->bound[0], p.b, nb->sphere);
                meet(&w->next, na->child[1], na->bound[1], p.b, nb->sphere);
            } else if (b_inner) {
                meet(&w->next, p.a, na->sphere, nb->child[0], nb->bound[0]);
                meet(&w->next, p.a, na->sphere, nb->child[1], nb->bound[1]);
            } else if (al_spheres_overlap(&w->tree->real[p.a], &w->tree->real[p.b])) {
                w->fn(w->ctx, na->user, nb->user);
            }
        }
        if (!scratch_room(&w->pending, w->next.count)) return false;
        memcpy((node_pair *) w->pending.items + w->pending.count, w->next.items,
               (size_t) w->next.count * sizeof(node_pair));
        w->pending.count += w->next.count;
    }
    return true;
}

al_status al_sphere_tree_pairs(const al_sphere_tree *tree, al_sphere_pair_fn fn, void *ctx)
{
    if (!tree || !fn) return AL_OK;
    /* Every pair of objects meets at exactly one inner node, where one is under the first
     * child and the other under the second: taking every inner node once, in the array's
     * order, covers every pair once. */
    node_pair pending[4 * PAIR_BATCH], next[4 * PAIR_BATCH];
    pair_walk w = {.tree = tree, .fn = fn, .ctx = ctx};
    scratch_init(&w.pending, pending, 4 * PAIR_BATCH, sizeof pending[0]);
    scratch_init(&w.next, next, 4 * PAIR_BATCH, sizeof next[0]); /* never grows */
    bool ok = true;
    for (int i = 0; i < tree->used && ok; i++) {
        const st_node *n = &tree->nodes[i];
        if (n->child[0] < 0) continue;
        meet(&w.pending, n->child[0], n->bound[0], n->child[1], n->bound[1]); /* empty */
        ok = descend_pairs(&w);
    }
    scratch_free(&w.pending);
    return ok ? AL_OK : AL_ERR_NOMEM;
}

void al_sphere_tree_query(const al_sphere_tree *tree, const al_sphere *s, al_sphere_query_fn fn,
                          void *ctx)
{
    if (!tree || !s || !fn || tree->root < 0) return;
    /* Walks down and across with the parent links: no stack, so no memory to fail. */
    int i = tree->root;
    while (i >= 0) {
        const st_node *n = &tree->nodes[i];
        al_sphere bound = widen(n->sphere);
        if (spheres_touch(&bound, s)) {
            if (n->child[0] >= 0) {
                i = n->child[0];
                continue;
            }
            if (al_spheres_overlap(&tree->real[i], s)) fn(ctx, n->user);
        }
        i = next_subtree(tree, i);
    }
}

/* The sphere a ray is tested against at node I: a leaf's real one, the tightest. */
static al_sphere walk_sphere(const al_sphere_tree *t, int i)
{
    return is_leaf(t, i) ? t->real[i] : widen(t->nodes[i].sphere);
}

typedef struct ray_entry {
    double t; /* where the ray enters the node's sphere */
    int node;
} ray_entry;

/* Where the ray O + t * D (DD = |D|^2) enters S: 0 if O is inside, INFINITY if it misses S
 * for 0 <= t <= MAX_T. */
static double ray_enters(const double o[3], const double d[3], double dd, double max_t,
                         const al_sphere *s)
{
    double m[3];
    al_sub(o, s->center, m);
    double c = al_dot(m, m) - s->radius * s->radius;
    if (c <= 0) return 0;
    double b = al_dot(m, d);
    if (b >= 0 || dd == 0) return INFINITY;
    double disc = b * b - dd * c;
    if (disc < 0) return INFINITY;
    double t = (-b - sqrt(disc)) / dd;
    return t <= max_t ? t : INFINITY;
}

/* A binary min-heap on t. */
static bool heap_push(scratch *heap, double t, int node)
{
    if (!scratch_room(heap, 1)) return false;
    ray_entry *e = heap->items;
    int i = heap->count++;
    while (i > 0 && e[(i - 1) / 2].t > t) {
        e[i] = e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e[i] = (ray_entry){t, node};
    return true;
}

static ray_entry heap_pop(scratch *heap)
{
    ray_entry *e = heap->items, top = e[0], last = e[--heap->count];
    int i = 0, n = heap->count;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && e[c + 1].t < e[c].t) c++;
        if (e[c].t >= last.t) break;
        e[i] = e[c];
        i = c;
    }
    if (n > 0) e[i] = last;
    return top;
}

al_status al_sphere_tree_ray(const al_sphere_tree *tree, const double origin[3],
                             const double dir[3], double max_t, al_sphere_hit_fn hit_fn, void *ctx,
                             al_sphere_hit *out)
{
    *out = (al_sphere_hit){.hit = false, .handle = -1, .user = -1, .t = INFINITY};
    if (!tree || tree->root < 0 || !al_is_finite3(origin) || !al_is_finite3(dir) || !(max_t >= 0))
        return AL_OK;
    double dd = al_dot(dir, dir);
    ray_entry local[LOCAL_ENTRIES];
    scratch heap;
    scratch_init(&heap, local, LOCAL_ENTRIES, sizeof local[0]);
    al_status status = AL_OK;
    al_sphere root = walk_sphere(tree, tree->root);
    double t0 = ray_enters(origin, dir, dd, max_t, &root);
    if (t0 < INFINITY && !heap_push(&heap, t0, tree->root)) status = AL_ERR_NOMEM;
    /* Nearest entry first; a leaf's key is its real sphere's entry, which no hit inside
     * the object can come before, so the walk ends at the first key past the best hit. */
    while (heap.count > 0 && status == AL_OK) {
        ray_entry e = heap_pop(&heap);
        if (e.t >= out->t) break;
        const st_node *n = &tree->nodes[e.node];
        if (n->child[0] < 0) {
            double t = e.t;
            if (hit_fn && !(hit_fn(ctx, n->user, &t) && t >= 0 && t <= max_t)) continue;
            if (t < out->t) *out = (al_sphere_hit){true, e.node, n->user, t};
            continue;
        }
        for (int k = 0; k < 2; k++) {
            int c = n->child[k];
            al_sphere s = walk_sphere(tree, c);
            double t = ray_enters(origin, dir, dd, max_t, &s);
            if (t < out->t && !heap_push(&heap, t, c)) status = AL_ERR_NOMEM;
        }
    }
    scratch_free(&heap);
    return status;
}

/* --- checks ---------------------------------------------------------------------------- */

static bool complain(char *why, size_t why_size, const char *format, ...)
{
    if (why && why_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, why_size, format, args);
        va_end(args);
    }
    return false;
}

/* INNER inside OUTER up to 1e-9 of the size of the numbers involved. */
static bool encloses_within_tolerance(const al_sphere *outer, const al_sphere *inner)
{
    double size = 1 + outer->radius + inner->radius;
    for (int k = 0; k < 3; k++) size += fabs(outer->center[k]) + fabs(inner->center[k]);
    double d = sqrt(distance2(outer->center, inner->center));
    return d + inner->radius <= outer->radius + 1e-9 * size;
}

/* Checks node I (reached from its parent) and its links; counts it in *LEAVES or *INNER. */
static bool check_node(const al_sphere_tree *t, int i, char *why, size_t why_size, int *leaves,
                       int *inner)
{
    const st_node *n = &t->nodes[i];
    if (n->child[0] == NODE_FREE) return complain(why, why_size, "node %d is free but linked", i);
    al_sphere s = widen(n->sphere);
    if (!is_sphere(&s)) return complain(why, why_size, "node %d has no sphere", i);
    if (n->child[0] == NODE_LEAF) {
        ++*leaves;
        if (!encloses_within_tolerance(&s, &t->real[i]))
            return complain(why, why_size, "leaf %d's fat sphere does not enclose its object", i);
        return true;
    }
    ++*inner;
    for (int k = 0; k < 2; k++) {
        int c = n->child[k];
        if (c < 0 || c >= t->used)
            return complain(why, why_size, "node %d has child %d out of range", i, c);
        if (t->nodes[c].parent != i)
            return complain(why, why_size, "node %d's child %d names %d as its parent", i, c,
                            t->nodes[c].parent);
        al_sphere cs = widen(t->nodes[c].sphere);
        if (!encloses_within_tolerance(&s, &cs))
            return complain(why, why_size, "node %d's sphere does not enclose child %d", i, c);
        if (!same_bound(n->bound[k], t->nodes[c].sphere))
            return complain(why, why_size, "node %d's copy of child %d's sphere is stale", i, c);
    }
    if (n->child[0] == n->child[1])
        return complain(why, why_size, "node %d has the same child twice", i);
    return true;
}

bool al_sphere_tree_check(const al_sphere_tree *tree, char *why, size_t why_size)
{
    if (!tree) return complain(why, why_size, "no tree");
    if ((tree->root < 0) != (tree->count == 0))
        return complain(why, why_size, "root %d with %d objects", tree->root, tree->count);
    if (tree->root < 0) return true;
    if (tree->nodes[tree->root].parent != -1)
        return complain(why, why_size, "the root has parent %d", tree->nodes[tree->root].parent);
    /* A depth-first walk with an explicit stack and a mark per node: a node reached twice
     * is a cycle or a shared subtree. Each node is expanded once, so the stack holds at
     * most 2 * used + 1 entries. */
    int *stack = malloc((2 * (size_t) tree->used + 1) * sizeof *stack);
    unsigned char *seen = calloc((size_t) tree->used, 1);
    bool ok = stack && seen;
    if (!ok) complain(why, why_size, "no memory to check the tree");
    int top = 0, leaves = 0, inner = 0;
    if (ok) stack[top++] = tree->root;
    while (ok && top > 0) {
        int i = stack[--top];
        if (seen[i]) {
            ok = complain(why, why_size, "node %d is reached twice", i);
            break;
        }
        seen[i] = 1;
        ok = check_node(tree, i, why, why_size, &leaves, &inner);
        if (ok && tree->nodes[i].child[0] >= 0)
            for (int k = 0; k < 2; k++) stack[top++] = tree->nodes[i].child[k];
    }
    int live = 0;
    for (int i = 0; ok && i < tree->used; i++) live += tree->nodes[i].child[0] != NODE_FREE;
    if (ok && (leaves != tree->count || inner != leaves - 1 || live != leaves + inner))
        ok = complain(why, why_size,
                      "%d objects, but %d leaves and %d inner nodes reached of %d in use",
                      tree->count, leaves, inner, live);
    if (ok && live + tree->free_count != tree->used)
        ok = complain(why, why_size, "%d free nodes counted, %d in the array", tree->free_count,
                      tree->used - live);
    free(stack);
    free(seen);
    return ok;
}

/* --- swept sphere against a plane ------------------------------------------------------- */

bool al_sphere_plane_toi(const double p0[3], const double p1[3], double radius,
                         const double normal[3], double dist, double *u, double at[3])
{
    /* The thread's D0, D1: signed distances of the centre from the plane. AT may alias P0
     * or P1, so everything is read before it is written. */
    double d0 = al_dot(normal, p0) - dist, d1 = al_dot(normal, p1) - dist;
    double start[3], end[3];
    al_copy(p0, start);
    al_copy(p1, end);
    *u = 1;
    al_copy(end, at);
    if (!isfinite(d0) || !isfinite(d1) || !isfinite(radius) || radius < 0) return false;
    /* Touching or overlapping at the start: the impact is now, whichever way it moves. */
    if (fabs(d0) <= radius) {
        *u = 0;
        al_copy(start, at);
        return true;
    }
    /* The centre first meets the plane shifted towards it by the radius: +R from the
     * front, -R from the back. It must get there by P1; this also rules out moving away
     * and no motion along the normal (D0 == D1), so the division below is safe. */
    double shifted = d0 > 0 ? radius : -radius;
    if (d0 > 0 ? d1 > radius : d1 < -radius) return false;
    double fraction = (d0 - shifted) / (d0 - d1);
    *u = fmin(fmax(fraction, 0), 1);
    al_lerp(start, end, *u, at);
    return true;
}
