/* A dynamic sphere tree: the broadphase for moving agents.
 *
 * A binary tree of bounding spheres over objects that each have a sphere (an agent's
 * bounding sphere). Objects are inserted, moved and removed one at a time, as in the
 * "hungry sphere tree" of the seed articles: an insertion walks down to the child whose
 * sphere melded with the new one would be smallest, a removal puts the sibling in the
 * parent's place, and a move re-inserts an object only when it leaves its parent's sphere.
 *
 * Entry points:
 *   al_sphere_tree_create / _destroy    an empty tree
 *   al_sphere_tree_insert / _remove     objects, named by a handle
 *   al_sphere_tree_move                 the object's new sphere, once per physics step
 *   al_sphere_tree_rebuild              all inner nodes anew, after many insertions
 *   al_sphere_tree_pairs                every pair of objects whose spheres overlap
 *   al_sphere_tree_query                the objects a sphere overlaps
 *   al_sphere_tree_ray                  the nearest object a ray hits (with a narrow phase)
 *   al_sphere_meld, al_sphere_plane_toi the geometry the tree is built on
 *
 * Overlap means the distance of the centres is less than the sum of the radii, computed
 * as al_spheres_overlap does, in every answer: pairs and queries are exact, not "candidates".
 * The tree's own spheres are floats rounded outward (some 1e-7 of the coordinates looser
 * than exact), which only costs pruning. A tree takes about 160 bytes per object.
 *
 * A tree is used by one thread at a time when it changes; the queries (pairs, query, ray,
 * check) only read it, so any number of threads may run them while nobody changes it.
 * Callbacks must not change the tree they are called from.
 */
#ifndef AL_SPHERETREE_H
#define AL_SPHERETREE_H

#include "al-status.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct al_sphere {
    double center[3];
    double radius; /* units, >= 0 */
} al_sphere;

typedef struct al_sphere_tree al_sphere_tree;

/* An empty tree. Each object's leaf keeps its sphere grown by MARGIN units (a "fat"
 * sphere) and is only touched when the object's real sphere leaves it: a larger margin
 * means fewer re-insertions of moving objects but looser spheres to prune with; 0 keeps
 * the leaves exact. NULL if MARGIN is negative, not finite or beyond 1e30, or memory runs
 * out. */
al_sphere_tree *al_sphere_tree_create(double margin);

/* Frees the tree. NULL is a no-op. */
void al_sphere_tree_destroy(al_sphere_tree *tree);

/* Adds an object with sphere S and the value USER (given back by the queries). Returns its
 * handle (>= 0), valid until the object is removed (then it may name a later object), or
 * -1 with the tree unchanged if memory runs out or S is not a sphere (a coordinate or the
 * radius not finite or beyond 1e30, or the radius negative). */
int al_sphere_tree_insert(al_sphere_tree *tree, const al_sphere *s, int user);

/* Removes the object HANDLE. Returns false (and changes nothing) if HANDLE is not an
 * object of the tree. */
bool al_sphere_tree_remove(al_sphere_tree *tree, int handle);

/* Gives the object HANDLE its new sphere S. Returns true if its leaf was taken out and
 * inserted again (the fat sphere left its parent's sphere), false if the tree kept its
 * shape: the real sphere is still inside the fat one, or the new fat sphere is still inside
 * the parent's. Also false, with nothing changed, if HANDLE is not an object of the tree
 * or S is not a sphere (see al_sphere_tree_insert). Never allocates: it cannot fail for
 * want of memory. */
bool al_sphere_tree_move(al_sphere_tree *tree, int handle, const al_sphere *s);

/* Builds the tree's inner nodes again, top down (the thread's other way to build a tree):
 * the objects are split in halves at the median of their centres along the widest extent,
 * and each half likewise. Inserting objects one by one in no particular order makes a tree
 * whose upper levels stay as loose as the first few objects left them, and moves and
 * re-insertions keep a tree about as good as it is; call this after adding many objects
 * at once (a level's agents spawning), or now and then. Handles stay valid. Returns AL_OK,
 * or AL_ERR_NOMEM with the tree unchanged. */
al_status al_sphere_tree_rebuild(al_sphere_tree *tree);

/* Number of objects. */
int al_sphere_tree_count(const al_sphere_tree *tree);

/* The object's current (real) sphere and user value; false if HANDLE is not an object. */
bool al_sphere_tree_get(const al_sphere_tree *tree, int handle, al_sphere *s, int *user);

typedef void (*al_sphere_pair_fn)(void *ctx, int user_a, int user_b);

/* Calls FN once for every pair of objects whose real spheres overlap, in no set order.
 * The tree is walked against itself (a descent over pairs of nodes), not object by object.
 * The pairs of nodes waiting to be expanded live on the C stack up to 1024 of them (some
 * 400 for 10,000 agents), beyond that on the heap. Returns AL_OK, or AL_ERR_NOMEM if that
 * memory could not grow: some pairs were then not reported. */
al_status al_sphere_tree_pairs(const al_sphere_tree *tree, al_sphere_pair_fn fn, void *ctx);

typedef void (*al_sphere_query_fn)(void *ctx, int user);

/* Calls FN for every object whose real sphere overlaps S. Needs no memory. */
void al_sphere_tree_query(const al_sphere_tree *tree, const al_sphere *s, al_sphere_query_fn fn,
                          void *ctx);

/* The narrow phase of a ray: true if the ray hits object USER (which must lie inside the
 * object's sphere), with *T its distance along the ray in units of DIR. */
typedef bool (*al_sphere_hit_fn)(void *ctx, int user, double *t);

typedef struct al_sphere_hit {
    bool hit;
    int handle; /* of the object hit; -1 without a hit */
    int user;
    double t; /* the hit point is ORIGIN + t * DIR */
} al_sphere_hit;

/* The nearest object the ray ORIGIN + t * DIR, 0 <= t <= MAX_T, hits. Objects are visited
 * nearest first by where the ray enters their sphere (0 if ORIGIN is inside), and the walk
 * stops once that is farther than the best hit. HIT_FN is the narrow phase (a box test,
 * say); NULL means the real sphere itself. Hits outside [0, MAX_T] are ignored. A zero
 * DIR only hits spheres containing ORIGIN. Returns AL_OK with *OUT filled, or
 * AL_ERR_NOMEM if the walk's heap could not grow (*OUT is then the best hit found). */
al_status al_sphere_tree_ray(const al_sphere_tree *tree, const double origin[3],
                             const double dir[3], double max_t, al_sphere_hit_fn hit_fn, void *ctx,
                             al_sphere_hit *out);

/* The structure, for the tests: every inner sphere encloses both children's (tolerance
 * 1e-9 of the coordinates' size), every fat leaf sphere its real one, parent and child
 * links agree, every node is reached once from the root and the count is right. Returns
 * true, or false and a sentence in WHY (WHY may be NULL). */
bool al_sphere_tree_check(const al_sphere_tree *tree, char *why, size_t why_size);

/* True if A and B overlap: |ca - cb|^2 < (ra + rb)^2, the test every query uses. */
bool al_spheres_overlap(const al_sphere *a, const al_sphere *b);

/* The smallest sphere enclosing the spheres A and B (if one contains the other, that one)
 * into OUT, which may alias A or B. The spheres must be finite. */
void al_sphere_meld(const al_sphere *a, const al_sphere *b, al_sphere *out);

/* Swept sphere against a plane: a sphere of RADIUS moving from P0 to P1 against the plane
 * dot(NORMAL, x) == DIST (NORMAL of unit length). Returns true if it touches the plane
 * during the move, with *U in [0, 1] the fraction of the move at first contact and AT the
 * sphere's centre then (P0 + U * (P1 - P0)): U = (D0 - R) / (D0 - D1) with D0, D1 the
 * signed distances of P0 and P1, and -R for R when approaching from the back. A sphere
 * touching or crossing the plane at P0 has U = 0. False, with *U = 1 and AT = P1, if there
 * is no contact: no motion along the normal, moving away, reaching the plane only after
 * P1, or an input that is not finite (or a negative RADIUS). */
bool al_sphere_plane_toi(const double p0[3], const double p1[3], double radius,
                         const double normal[3], double dist, double *u, double at[3]);

#endif
