/* Planes (see al-plane.h) and the deduplicating plane table (see plane.h).
 *
 * Workload: a few thousand brushes give tens of thousands of planes once every hull's
 * bevels and expansions are added; lookups hash the distance (floor(dist)) and compare
 * normals within the bucket, checking the neighbouring bucket when the distance lies within
 * AL_DIST_EPSILON of a bucket edge.
 */
#include "plane.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 65536

int al_plane_type(const double normal[3])
{
    for (int k = 0; k < 3; k++)
        if (normal[k] == 1.0 || normal[k] == -1.0) return k;
    return AL_PLANE_ANY;
}

int al_plane_snap_normal(double normal[3])
{
    for (int k = 0; k < 3; k++) {
        int a = (k + 1) % 3, b = (k + 2) % 3;
        if (fabs(normal[a]) < AL_AXIAL_EPSILON && fabs(normal[b]) < AL_AXIAL_EPSILON) {
            normal[a] = 0.0;
            normal[b] = 0.0;
            normal[k] = normal[k] > 0 ? 1.0 : -1.0;
            return k;
        }
    }
    return AL_PLANE_ANY;
}

bool al_plane_from_points(const double p0[3], const double p1[3], const double p2[3],
                          double normal[3], double *dist)
{
    if (!al_is_finite3(p0) || !al_is_finite3(p1) || !al_is_finite3(p2)) return false;
    double a[3], b[3], n[3];
    al_sub(p0, p1, a);
    al_sub(p2, p1, b);
    al_cross(a, b, n);
    double la = al_length(a), lb = al_length(b);
    double len = al_normalize(n, n);
    /* |a x b| = |a||b| sin(angle): reject angles below about 1e-9 radians. */
    if (!(len > 1e-9 * la * lb) || !(len > 0)) return false;
    int type = al_plane_snap_normal(n);
    double d;
    if (type < AL_PLANE_ANY)
        d = n[type] * (p0[type] + p1[type] + p2[type]) / 3.0;
    else
        d = (al_dot(n, p0) + al_dot(n, p1) + al_dot(n, p2)) / 3.0;
    /* Integer distances are the common case; remove representation noise around them. */
    double r = nearbyint(d);
    if (fabs(d - r) < 1e-9) d = r;
    al_copy(n, normal);
    *dist = d;
    return true;
}

bool al_plane_table_init(al_plane_table *table)
{
    memset(table, 0, sizeof *table);
    table->buckets = malloc(BUCKETS * sizeof *table->buckets);
    if (!table->buckets) return false;
    for (int i = 0; i < BUCKETS; i++) table->buckets[i] = -1;
    return true;
}

void al_plane_table_free(al_plane_table *table)
{
    if (!table) return;
    free(table->planes);
    free(table->next);
    free(table->buckets);
    memset(table, 0, sizeof *table);
}

static unsigned bucket_of(double dist)
{
    double f = floor(dist);
    long long key = fabs(f) < 9e18 ? (long long) f : 0; /* any finite distance is safe */
    unsigned long long h = (unsigned long long) key * 0x9E3779B97F4A7C15ull;
    return (unsigned) (h >> 48) & (BUCKETS - 1);
}

bool al_plane_table_load(al_plane_table *table, const al_plane *planes, int count)
{
    if (count < 0 || count % 2 != 0 || !al_plane_table_init(table)) return false;
    int capacity = count > 0 ? count : 2;
    table->planes = malloc((size_t) capacity * sizeof *table->planes);
    table->next = malloc((size_t) (capacity / 2) * sizeof *table->next);
    if (!table->planes || !table->next) {
        al_plane_table_free(table);
        return false;
    }
    if (count > 0) memcpy(table->planes, planes, (size_t) count * sizeof *planes);
    table->capacity = capacity;
    table->count = count;
    /* Chains as al_plane_table_add builds them: each new plane at the head of its bucket. */
    for (int c = 0; c < count / 2; c++) {
        unsigned b = bucket_of(table->planes[2 * c].dist);
        table->next[c] = table->buckets[b];
        table->buckets[b] = c;
    }
    return true;
}

void al_plane_table_reset(al_plane_table *table)
{
    /* Only the buckets the planes used need clearing. */
    for (int c = 0; c < table->count / 2; c++)
        table->buckets[bucket_of(table->planes[2 * c].dist)] = -1;
    table->count = 0;
}

/* Canonical orientation: the component of largest magnitude is positive (first wins on
 * ties). */
static bool is_canonical(const double n[3])
{
    int k = 0;
    for (int j = 1; j < 3; j++)
        if (fabs(n[j]) > fabs(n[k]) + 1e-12) k = j;
    return n[k] > 0;
}

static bool same_plane(const al_plane *p, const double n[3], double d)
{
    return fabs(p->dist - d) < AL_DIST_EPSILON && fabs(p->normal[0] - n[0]) < AL_NORMAL_EPSILON &&
           fabs(p->normal[1] - n[1]) < AL_NORMAL_EPSILON &&
           fabs(p->normal[2] - n[2]) < AL_NORMAL_EPSILON;
}

static int find_canonical(const al_plane_table *table, const double n[3], double d)
{
    unsigned b0 = bucket_of(d - AL_DIST_EPSILON), b1 = bucket_of(d + AL_DIST_EPSILON);
    for (int pass = 0; pass < 2; pass++) {
        unsigned b = pass == 0 ? b0 : b1;
        if (pass == 1 && b1 == b0) break;
        for (int c = table->buckets[b]; c >= 0; c = table->next[c])
            if (same_plane(&table->planes[2 * c], n, d)) return 2 * c;
    }
    return -1;
}

int al_plane_table_find(const al_plane_table *table, const double normal[3], double dist)
{
    double n[3];
    al_copy(normal, n);
    al_plane_snap_normal(n);
    if (is_canonical(n)) return find_canonical(table, n, dist);
    double f[3] = {-n[0], -n[1], -n[2]};
    int i = find_canonical(table, f, -dist);
    return i < 0 ? -1 : i + 1;
}

int al_plane_table_add(al_plane_table *table, const double normal[3], double dist)
{
    double n[3];
    al_copy(normal, n);
    int type = al_plane_snap_normal(n);
    bool canonical = is_canonical(n);
    double cn[3], cd = dist;
    al_copy(n, cn);
    if (!canonical) {
        al_scale(n, -1.0, cn);
        cd = -dist;
    }
    int found = find_canonical(table, cn, cd);
    if (found >= 0) return canonical ? found : found + 1;

    if (table->count + 2 > table->capacity) {
        int capacity = table->capacity ? table->capacity * 2 : 1024;
        al_plane *planes = realloc(table->planes, (size_t) capacity * sizeof *planes);
        if (!planes) return -1;
        table->planes = planes;
        int *next = realloc(table->next, (size_t) (capacity / 2) * sizeof *next);
        if (!next) return -1;
        table->next = next;
        table->capacity = capacity;
    }
    int index = table->count;
    al_plane *p = &table->planes[index];
    al_copy(cn, p->normal);
    p->dist = cd;
    p->type = type;
    al_plane *q = &table->planes[index + 1];
    al_scale(cn, -1.0, q->normal);
    q->dist = -cd;
    q->type = type;
    table->count += 2;
    unsigned b = bucket_of(cd);
    table->next[index / 2] = table->buckets[b];
    table->buckets[b] = index / 2;
    return canonical ? index : index + 1;
}
