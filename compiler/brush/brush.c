/* Brush construction and validation (see brush.h), and the builder other folders measure
 * brushes with (see al-brush.h).
 *
 * Each face's plane starts as a huge square (AL_WORLD_EXTENT) and is clipped by every other
 * plane of the brush; what remains is that face's polygon. A brush of n faces costs O(n^2)
 * clips; real brushes have 4 to 20 faces.
 */
#include "brush.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *role_names[] = {"worldspawn", "func_group"};

al_entity_role al_entity_role_of(const char *classname)
{
    if (!classname || !classname[0]) return AL_ROLE_WORLD;
    for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
        if (strcmp(classname, role_names[i]) == 0) return AL_ROLE_WORLD;
    if (strncmp(classname, "trigger_", 8) == 0) return AL_ROLE_NONSOLID;
    if (strcmp(classname, "func_illusionary") == 0) return AL_ROLE_NONSOLID;
    if (strcmp(classname, "func_detail_illusionary") == 0) return AL_ROLE_NONSOLID;
    if (strncmp(classname, "func_detail", 11) == 0) return AL_ROLE_DETAIL;
    return AL_ROLE_MODEL;
}

bool al_entity_in_world(const char *classname)
{
    al_entity_role role = al_entity_role_of(classname);
    return role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL ||
           (classname && strcmp(classname, "func_detail_illusionary") == 0);
}

int al_default_hulls(const al_hull_desc **hulls)
{
    static const al_hull_desc defaults[] = {
        {"point", {0, 0, 0}, {0, 0, 0}},
        {"stand", {-16, -16, -24}, {16, 16, 32}},
        {"crouch", {-16, -16, -24}, {16, 16, 16}},
        {"large", {-32, -32, -24}, {32, 32, 64}},
    };
    *hulls = defaults;
    return (int) (sizeof defaults / sizeof defaults[0]);
}

int al_brush_face_points(const al_plane *planes, const int *indices, int count, int i,
                         double (*out)[3])
{
    /* Clipped in two ping-pong buffers (OUT and one on the stack): a bevelled brush of 30
     * planes would otherwise allocate 900 intermediate polygons. */
    double work[AL_BRUSH_POLYGON_MAX][3];
    double (*cur)[3] = out, (*next)[3] = work;
    const al_plane *p = &planes[indices ? indices[i] : i];
    al_points_base(p->normal, p->dist, (double (*)[3]) cur);
    int n = 4;
    for (int j = 0; j < count && n > 0; j++) {
        if (j == i) continue;
        const al_plane *q = &planes[indices ? indices[j] : j];
        n = al_points_clip((const double (*)[3]) cur, n, q->normal, q->dist, AL_ON_EPSILON, false,
                           next, AL_BRUSH_POLYGON_MAX);
        double (*t)[3] = cur;
        cur = next;
        next = t;
    }
    if (n > 0 && cur != out) memcpy(out, cur, (size_t) n * sizeof *out);
    return n;
}

int al_brush_windings(al_arena *arena, const al_plane_table *planes, const int *plane_indices,
                      int count, al_winding **windings)
{
    /* Each face is allocated once, at the end of its clips. */
    double points[AL_BRUSH_POLYGON_MAX][3];
    int made = 0;
    for (int i = 0; i < count; i++) {
        int n = al_brush_face_points(planes->planes, plane_indices, count, i, points);
        if (n < 0) return -1;
        windings[i] = NULL;
        if (n >= 3) {
            windings[i] = al_winding_from_points(arena, (const double (*)[3]) points, n);
            if (!windings[i]) return -1;
            made++;
        }
    }
    return made;
}

double al_brush_volume(const al_plane_table *planes, const al_side *sides, int count)
{
    /* Divergence theorem about a point of the brush, so large coordinates cancel. */
    double origin[3] = {0, 0, 0};
    for (int i = 0; i < count; i++)
        if (sides[i].winding) {
            al_copy(sides[i].winding->points[0], origin);
            break;
        }
    double volume = 0;
    for (int i = 0; i < count; i++) {
        if (!sides[i].winding) continue;
        const al_plane *p = &planes->planes[sides[i].plane];
        double h = p->dist - al_dot(p->normal, origin);
        volume += h * al_winding_area(sides[i].winding) / 3.0;
    }
    return volume;
}

static bool point_is_huge(const double p[3])
{
    return fabs(p[0]) > AL_COORD_MAX || fabs(p[1]) > AL_COORD_MAX || fabs(p[2]) > AL_COORD_MAX;
}

static uint32_t face_flags(const al_input *input, const al_face_desc *face)
{
    int m = face->material;
    return m >= 0 && m < input->material_count ? input->materials[m].flags : 0;
}

uint32_t al_brush_contents(const al_input *input, int index, int *other)
{
    const al_brush_desc *desc = &input->brushes[index];
    if (other) *other = -1;
    if (desc->face_count <= 0 || desc->first_face < 0 ||
        desc->first_face > input->face_count - desc->face_count)
        return 0;
    const al_face_desc *faces = &input->faces[desc->first_face];
    uint32_t contents = face_flags(input, &faces[0]) & AL_MATERIAL_CONTENTS;
    for (int f = 1; other && f < desc->face_count; f++) {
        uint32_t flags = face_flags(input, &faces[f]);
        bool hidden = flags & (AL_MATERIAL_NODRAW | AL_MATERIAL_TRIGGER);
        if ((flags & AL_MATERIAL_CONTENTS) == contents ||
            (hidden && !(flags & AL_MATERIAL_CONTENTS)))
            continue;
        *other = f;
        break;
    }
    return contents;
}

/* The contents in words, for diagnostics. */
static const char *contents_name(uint32_t contents)
{
    if (contents & AL_MATERIAL_ORIGIN) return "origin";
    if (contents & AL_MATERIAL_HINT) return "hint";
    if (contents & AL_MATERIAL_CLIP) return "clip";
    if (contents & AL_MATERIAL_LAVA) return "lava";
    if (contents & AL_MATERIAL_SLIME) return "slime";
    if (contents & AL_MATERIAL_LIQUID) return "water";
    if (contents & AL_MATERIAL_SKY) return "sky";
    if (contents & AL_MATERIAL_NONSOLID) return "non-solid";
    return "solid";
}

al_brush *al_brush_copy(al_arena *arena, const al_brush *b)
{
    al_brush *c = al_arena_alloc(arena, sizeof *c);
    al_side *sides = al_arena_alloc(arena, (size_t) (b->side_count ? b->side_count : 1) *
                                               sizeof *sides);
    if (!c || !sides) return NULL;
    *c = *b;
    c->sides = sides;
    for (int s = 0; s < b->side_count; s++) {
        sides[s] = b->sides[s];
        if (b->sides[s].winding && !(sides[s].winding = al_winding_copy(arena, b->sides[s].winding)))
            return NULL;
    }
    return c;
}

al_brush *al_brush_build(al_arena *arena, al_plane_table *planes, const al_input *input,
                         int index, al_diag_list *diags, bool *out_of_memory)
{
    const al_brush_desc *desc = &input->brushes[index];
    int entity = desc->entity, bi = desc->index, line = desc->line;
    *out_of_memory = false;
    /* Everything a rejected brush allocated is released to this mark. */
    al_arena_mark scratch = al_arena_get_mark(arena);
#define REJECT(face, ...)                                                                  \
    do {                                                                                   \
        al_arena_release(arena, scratch);                                                  \
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, entity, bi, face, line, \
                    -1, __VA_ARGS__);                                                      \
        return NULL;                                                                       \
    } while (0)

    int n = desc->face_count;
    if (desc->first_face < 0 || n < 0 || desc->first_face > input->face_count - n)
        REJECT(-1, "face range %d+%d is outside the input's %d faces", desc->first_face, n,
               input->face_count);
    if (n == 1) REJECT(-1, "has 1 face; a closed brush needs at least 4");
    if (n < 4) REJECT(-1, "has %d faces; a closed brush needs at least 4", n);
    if (n > AL_BRUSH_MAX_FACES)
        REJECT(-1, "has %d faces; at most %d are supported", n, AL_BRUSH_MAX_FACES);

    int *plane_of = al_arena_alloc(arena, (size_t) n * sizeof *plane_of);
    al_winding **windings = al_arena_alloc(arena, (size_t) n * sizeof *windings);
    if (!plane_of || !windings) goto nomem;

    for (int f = 0; f < n; f++) {
        const al_face_desc *face = &input->faces[desc->first_face + f];
        for (int k = 0; k < 3; k++) {
            if (!al_is_finite3(face->points[k]))
                REJECT(f, "point %d of the face is not a finite number (NaN or infinity)", k + 1);
            if (point_is_huge(face->points[k]))
                REJECT(f, "point %d (%g %g %g) lies beyond the limit of +-%g units", k + 1,
                       face->points[k][0], face->points[k][1], face->points[k][2], AL_COORD_MAX);
        }
        double normal[3], dist;
        if (!al_plane_from_points(face->points[0], face->points[1], face->points[2], normal,
                                  &dist))
            REJECT(f, "the three points are collinear or coincide, so they define no plane");
        int p = al_plane_table_add(planes, normal, dist);
        if (p < 0) goto nomem;
        plane_of[f] = p;
        for (int g = 0; g < f; g++) {
            if (plane_of[g] == al_plane_flip(p))
                REJECT(f, "lies on the plane of face %d facing the other way (zero thickness)",
                       g);
            if (plane_of[g] == p) {
                /* The half-spaces are the same, so the solid is well defined; Quake's tools
                 * keep such brushes too (dm2.map has one). Drop the face, keep the brush. */
                al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, entity, bi, f,
                            line, -1, "lies on the same plane as face %d (duplicate plane); "
                            "face ignored", g);
                plane_of[f] = -1;
                break;
            }
        }
    }
    /* Compact away ignored duplicates. */
    int unique = 0;
    int *face_of = al_arena_alloc(arena, (size_t) n * sizeof *face_of);
    if (!face_of) goto nomem;
    for (int f = 0; f < n; f++)
        if (plane_of[f] >= 0) {
            face_of[unique] = f;
            plane_of[unique++] = plane_of[f];
        }
    if (unique < 4)
        REJECT(-1, "has %d different planes; a closed brush needs at least 4", unique);

    int made = al_brush_windings(arena, planes, plane_of, unique, windings);
    if (made < 0) goto nomem;
    for (int u = 0; u < unique; u++) {
        const al_winding *w = windings[u];
        if (!w) continue;
        for (int i = 0; i < w->count; i++)
            if (point_is_huge(w->points[i]))
                REJECT(face_of[u], "is unbounded: the planes do not enclose a finite solid");
    }
    if (made < 4) REJECT(-1, "has no volume (only %d faces touch the solid)", made);

    /* The brush is accepted: copy what it keeps above the scratch mark's data. */
    al_side *sides_tmp = al_arena_alloc(arena, (size_t) n * sizeof *sides_tmp);
    if (!sides_tmp) goto nomem;
    int kept = 0;
    for (int u = 0; u < unique; u++) {
        int f = face_of[u];
        const al_face_desc *face = &input->faces[desc->first_face + f];
        int material = face->material;
        if (material < -1 || material >= input->material_count) material = -1;
        if (!windings[u]) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, entity, bi, f, line,
                        -1, "the face's plane does not touch the brush; face ignored");
            continue;
        }
        sides_tmp[kept++] = (al_side){plane_of[u], material, f, windings[u],
                                      material >= 0 ? input->materials[material].flags : 0};
    }
    double volume = al_brush_volume(planes, sides_tmp, kept);
    if (!(volume >= AL_BRUSH_MIN_VOLUME)) REJECT(-1, "has no volume (%.3g cubic units)", volume);

    al_brush *b = al_arena_calloc(arena, 1, sizeof *b);
    al_side *sides = al_arena_alloc(arena, (size_t) kept * sizeof *sides);
    if (!b || !sides) goto nomem;
    memcpy(sides, sides_tmp, (size_t) kept * sizeof *sides);
    b->id = index;
    b->entity = entity;
    b->index = bi;
    b->line = line;
    b->model = -1;
    int other;
    b->material_flags = al_brush_contents(input, index, &other);
    if (other >= 0) {
        uint32_t theirs = face_flags(input, &input->faces[desc->first_face + other]);
        al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, entity, bi, other, line, -1,
                    "is %s but the brush's first face is %s; as in Quake's compilers, the first "
                    "face decides: the brush is %s",
                    contents_name(theirs & AL_MATERIAL_CONTENTS), contents_name(b->material_flags),
                    contents_name(b->material_flags));
    }
    b->side_count = kept;
    b->sides = sides;
    al_bounds_clear(b->mins, b->maxs);
    for (int s = 0; s < kept; s++)
        for (int i = 0; i < sides[s].winding->count; i++)
            al_bounds_add(sides[s].winding->points[i], b->mins, b->maxs);
    return b;

nomem:
    al_arena_release(arena, scratch);
    *out_of_memory = true;
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, entity, bi, -1, line, -1,
                "out of memory while building the brush");
    return NULL;
#undef REJECT
}

/* The scratch of al_brush_builder_measure: an arena and a plane table, emptied after every
 * brush. */
struct al_brush_builder {
    al_arena *arena;
    al_plane_table planes;
};

al_brush_builder *al_brush_builder_create(void)
{
    al_brush_builder *builder = calloc(1, sizeof *builder);
    if (!builder) return NULL;
    builder->arena = al_arena_create(1 << 16);
    if (!builder->arena || !al_plane_table_init(&builder->planes)) {
        al_brush_builder_destroy(builder);
        return NULL;
    }
    return builder;
}

void al_brush_builder_destroy(al_brush_builder *builder)
{
    if (!builder) return;
    al_arena_destroy(builder->arena);
    al_plane_table_free(&builder->planes);
    free(builder);
}

bool al_brush_builder_measure(al_brush_builder *builder, const al_input *input, int index,
                              al_brush_measure *out, al_diag_list *diags, bool *out_of_memory)
{
    al_arena_mark mark = al_arena_get_mark(builder->arena);
    al_brush *b =
        al_brush_build(builder->arena, &builder->planes, input, index, diags, out_of_memory);
    if (b) {
        memcpy(out->mins, b->mins, sizeof out->mins);
        memcpy(out->maxs, b->maxs, sizeof out->maxs);
        out->volume = al_brush_volume(&builder->planes, b->sides, b->side_count);
    }
    al_arena_release(builder->arena, mark);
    al_plane_table_reset(&builder->planes);
    return b != NULL;
}
