/* Light sources from entities, with the keys of Quake's light and of ericw-tools' (al-rad.h
 * lists them): lamps and spotlights, suns and sky domes, surface lights laid over the
 * faces of a material, jittered copies that soften a light's shadows, local minlights, and
 * each entity's minimum light.
 *
 * Entry points: al_rad_parse_lights (once per solver) and al_rad_light_value (the falloff,
 * angle and cone rules, for every luxel-light pair). Workload: a map's few hundred light
 * entities; a surface light's faces cut into pieces of AL_RAD_SURFACE_STEP units.
 */
#include "rad-internal.h"

#include "al-vis.h"
#include "al-world.h"
#include "al-entity-keys.h"
#include "al-vec3.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GATE        0.5  /* a light's range ends where it adds less than this level */
#define MAX_SAMPLES 1024 /* most copies "_samples" may ask for */
#define SURFACE_MIN 8.0  /* a surface light's face is not cut closer than this to its edge */
#define MAX_POINTS  64   /* of a face polygon a surface light is laid over */

typedef struct reader {
    const al_input *input;
    int entity;
    al_diag_list *diags;
} reader;

static void warn(const reader *r, const char *format, const char *key, const char *value,
                 const char *fallback)
{
    const al_entity_desc *e = &r->input->entities[r->entity];
    char message[160];
    snprintf(message, sizeof message, al_diag_translate(format), key, value);
    al_diag_add(r->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, r->entity, -1, -1, e->line, -1,
                "%s %s; using %s", e->classname ? e->classname : "entity", message, fallback);
}

static const char *value_of(const reader *r, const char *key)
{
    return al_entity_value(&r->input->entities[r->entity], key);
}

/* KEY, or its alias ALIAS when only that is set (ericw-tools reads both names). */
static const char *key_or(const reader *r, const char *key, const char *alias)
{
    return !value_of(r, key) && value_of(r, alias) ? alias : key;
}

/* A number key: FALLBACK when absent; a warning and FALLBACK when not a number or when
 * CHECK rejects it. */
static double number_key(const reader *r, const char *key, double fallback,
                         bool (*check)(double), const char *rule)
{
    const char *s = value_of(r, key);
    if (!s) return fallback;
    double v;
    char fb[32];
    snprintf(fb, sizeof fb, "%g", fallback);
    if (al_read_numbers(s, &v, 1) != 1) {
        warn(r, "key \"%s\" is \"%s\", not a number", key, s, fb);
        return fallback;
    }
    if (check && !check(v)) {
        char format[96];
        snprintf(format, sizeof format, "key \"%%s\" is \"%%s\", %s", rule);
        warn(r, format, key, s, fb);
        return fallback;
    }
    return v;
}

static bool positive(double v)
{
    return v > 0;
}

static bool is_delay(double v)
{
    return v == floor(v) && v >= 0 && v <= 5;
}

static bool is_cone(double v)
{
    return v >= 0 && v < 180;
}

static bool is_half_cone(double v)
{
    return v >= 0 && v < 90;
}

static bool not_negative(double v)
{
    return v >= 0;
}

static bool is_fraction(double v)
{
    return v >= 0 && v <= 1;
}

static bool is_samples(double v)
{
    return v == floor(v) && v >= 1 && v <= MAX_SAMPLES;
}

static bool is_switch(double v)
{
    return v == 0 || v == 1;
}

static bool is_dirt_switch(double v)
{
    return v == -1 || v == 0 || v == 1;
}

static bool is_dirt_angle(double v)
{
    return v >= 1 && v <= 90;
}

static bool is_style(double v)
{
    return v == floor(v) && v >= 0 && v <= 254;
}

/* "r g b" in 0..255, or 0..1 when no component exceeds 1, into COLOUR as 0..1 for white
 * (ericw-tools' reading: components above 255 make a brighter light); white if absent. */
static void colour_key(const reader *r, const char *key, float colour[3])
{
    colour[0] = colour[1] = colour[2] = 1;
    const char *s = value_of(r, key);
    if (!s) return;
    double c[3];
    if (al_read_numbers(s, c, 3) != 3 || c[0] < 0 || c[1] < 0 || c[2] < 0) {
        warn(r, "key \"%s\" is \"%s\", not three numbers of at least 0", key, s, "white");
        return;
    }
    double scale = c[0] > 1 || c[1] > 1 || c[2] > 1 ? 1.0 / 255.0 : 1.0;
    for (int k = 0; k < 3; k++) colour[k] = (float) (c[k] * scale);
}

/* A direction from "yaw pitch [roll]" in degrees (Quake's mangle). */
static void mangle_dir(double yaw, double pitch, double dir[3])
{
    double y = yaw * M_PI / 180.0, p = pitch * M_PI / 180.0;
    al_set(cos(y) * cos(p), sin(y) * cos(p), sin(p), dir);
}

static bool entity_origin(const al_entity_desc *e, double origin[3])
{
    const char *s = al_entity_value(e, "origin");
    return s && al_read_numbers(s, origin, 3) == 3;
}

/* A generator of jitter that gives the same copies every time the map is read (an update
 * must find its lights again, update.c). */
static double next_unit(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double) (z >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* How far L reaches: where a linear light ends, where another adds less than GATE (at
 * normal incidence). */
static double light_range(const rad_light *l)
{
    double v = fabs(l->level) / GATE;
    if (l->delay == 0 && l->falloff > 0) return l->falloff;
    switch (l->delay) {
    case 0:
        return fabs(l->level) / l->wait;
    case 1: return v * 128.0 / l->wait;
    case 2: return 128.0 * sqrt(v) / l->wait;
    case 5: return v <= 1 ? 0 : 128.0 * (sqrt(v) - 1.0) / l->wait;
    default: return INFINITY;
    }
}

double al_rad_light_value(const rad_light *l, double d, double cos_angle, const double to_point[3])
{
    if (cos_angle <= 0) return 0;
    double v;
    double sd = l->wait * (d > 1 ? d : 1);
    switch (l->delay) {
    case 0:
        v = l->falloff > 0 ? l->level * (1.0 - d / l->falloff) : l->level - l->wait * d;
        break;
    case 1: v = l->level * 128.0 / sd; break;
    case 2: v = l->level * (128.0 / sd) * (128.0 / sd); break;
    case 5: {
        double s = l->wait * d / 128.0 + 1.0;
        v = l->level / (s * s);
        break;
    }
    default: v = l->level; break;
    }
    if (v <= 0) return 0;
    if (l->kind == RAD_SPOT) {
        double c = al_dot(to_point, l->dir);
        if (c < l->cos_outer) return 0;
        if (c < l->cos_inner) v *= (c - l->cos_outer) / (l->cos_inner - l->cos_outer);
    }
    return v * (1.0 - l->anglescale + l->anglescale * cos_angle);
}

/* --- the list being built ------------------------------------------------------------ */

typedef struct light_list {
    rad_light *items;
    int32_t count, capacity;
} light_list;

static bool push(light_list *list, const rad_light *l)
{
    if (list->count == list->capacity) {
        int32_t cap = list->capacity ? list->capacity * 2 : 64;
        rad_light *p = realloc(list->items, (size_t) cap * sizeof *p);
        if (!p) return false;
        list->items = p;
        list->capacity = cap;
    }
    list->items[list->count++] = *l;
    return true;
}

/* What the parse needs besides the entity at hand. */
typedef struct parse {
    const al_world *world;
    const al_input *input;
    const al_face_polys *polys;
    al_diag_list *diags;
    light_list lights, floors, domes;
    const char **targets; /* targetnames of switched lights, in order: style 32 + index */
    int target_count;
    /* worldspawn keys that apply to every light */
    double anglescale;        /* "_anglescale" / "_anglesense" (default 0.5) */
    double dist;              /* "_dist": scales every falloff distance (default 1) */
    double range;             /* "_range" over Quake's 0.5: scales every level (default 1) */
    rad_dirt dirt;            /* the worldspawn's dirt keys */
    bool dirt_on;             /* "_dirt" 1: lights take dirt unless they say otherwise */
    bool sun_dirt, dome_dirt; /* "_sunlight_dirt", "_sunlight2_dirt" */
    float min_colour[3];      /* "_mincolor" */
} parse;

/* A dirt switch KEY of R (1 on, -1 off, 0 or absent: FALLBACK). */
static bool dirt_key(const reader *r, const char *key, bool fallback)
{
    double v = number_key(r, key, 0, is_dirt_switch, "not -1, 0 or 1");
    return v == 0 ? fallback : v > 0;
}

/* --- suns and sky domes -------------------------------------------------------------- */

/* A sun of LEVEL shining along DIR (unit). With PENUMBRA (degrees) above 0,
 * AL_RAD_PENUMBRA suns share the level: the first along DIR, the others turned by up to
 * PENUMBRA in yaw and elevation, which softens the shadows' edges (ericw-tools'
 * "_sunlight_penumbra"). */
static bool add_sun(parse *p, int entity, int style, double level, const float colour[3],
                    const double dir[3], double penumbra, double anglescale, bool dirt)
{
    int n = penumbra > 0 ? AL_RAD_PENUMBRA : 1;
    double yaw = atan2(dir[1], dir[0]), elevation = atan2(dir[2], hypot(dir[0], dir[1]));
    double spread = penumbra * M_PI / 180.0;
    uint64_t state = (uint64_t) entity * 7919u + 17u;
    for (int i = 0; i < n; i++) {
        rad_light l = {.kind = RAD_SUN,
                       .entity = entity,
                       .style = style,
                       .level = level / n,
                       .wait = 1,
                       .delay = 3,
                       .anglescale = anglescale,
                       .range = INFINITY,
                       .cluster = -1,
                       .dirt = dirt};
        memcpy(l.colour, colour, sizeof l.colour);
        double da = 0, de = 0;
        while (i > 0) {
            da = (next_unit(&state) * 2 - 1) * spread;
            de = (next_unit(&state) * 2 - 1) * spread;
            if (da * da + de * de <= spread * spread) break;
        }
        double y = yaw + da, e = elevation + de;
        al_set(cos(y) * cos(e), sin(y) * cos(e), sin(e), l.dir);
        if (!push(&p->lights, &l)) return false;
    }
    return true;
}

/* A sky dome of LEVEL (ericw-tools' "_sunlight2", or "_sunlight3" below the horizon when
 * not UPPER): AL_RAD_DOME suns in q3map2's arrangement as ericw-tools lays it, four rings
 * of 16 at elevations of 9, 27, 45 and 63 degrees (each ring turned a quarter step on from
 * the one before) and one along the axis, each with an equal share of the level (an open
 * floor under the upper dome gets 0.78 of it, as in ericw-tools, with the angle scale). */
static bool add_dome(parse *p, int style, double level, const float colour[3], bool upper,
                     double anglescale, bool dirt)
{
    const int rings = 4, per_ring = 16;
    double step = M_PI / 2 / (rings + 1), turn = 2 * M_PI / per_ring;
    double angle = 0, elevation = step * 0.5;
    rad_light l = {.kind = RAD_SUN,
                   .style = style,
                   .level = level / AL_RAD_DOME,
                   .wait = 1,
                   .delay = 3,
                   .anglescale = anglescale,
                   .range = INFINITY,
                   .cluster = -1,
                   .dome = true,
                   .dirt = dirt};
    memcpy(l.colour, colour, sizeof l.colour);
    double down = upper ? -1 : 1; /* the sign of the direction light travels, along z */
    for (int i = 0; i < rings; i++, elevation += step) {
        for (int j = 0; j < per_ring; j++, angle += turn) {
            al_set(cos(angle) * cos(elevation), sin(angle) * cos(elevation), down * sin(elevation),
                   l.dir);
            if (!push(&p->domes, &l)) return false;
        }
        angle += turn / rings;
    }
    al_set(0, 0, down, l.dir);
    return push(&p->domes, &l);
}

/* The worldspawn's keys: the sun, the sky domes and the settings every light takes. */
static bool read_world(parse *p, float minlight[3])
{
    reader r = {p->input, 0, p->diags};
    p->anglescale = number_key(&r, key_or(&r, "_anglescale", "_anglesense"), 0.5, is_fraction,
                               "not between 0 and 1");
    p->dist = number_key(&r, "_dist", 1, positive, "not above 0");
    p->range = number_key(&r, "_range", 0.5, positive, "not above 0") / 0.5;
    p->dirt_on = dirt_key(&r, "_dirt", false);
    p->dirt.random = number_key(&r, "_dirtmode", 0, is_switch, "not 0 or 1") == 1;
    p->dirt.depth = number_key(&r, "_dirtdepth", 128, positive, "not above 0");
    p->dirt.scale = number_key(&r, "_dirtscale", 1, not_negative, "below 0");
    p->dirt.gain = number_key(&r, "_dirtgain", 1, positive, "not above 0");
    p->dirt.angle = number_key(&r, "_dirtangle", 88, is_dirt_angle, "not between 1 and 90");
    p->dirt.minlight = dirt_key(&r, "_minlight_dirt", p->dirt_on);
    p->sun_dirt = dirt_key(&r, "_sunlight_dirt", p->dirt_on);
    p->dome_dirt = dirt_key(&r, "_sunlight2_dirt", p->dirt_on);

    const char *key = key_or(&r, "_minlight", "light");
    double level = number_key(&r, key, 0, not_negative, "below 0") * p->range;
    colour_key(&r, key_or(&r, "_mincolor", "_minlight_color"), p->min_colour);
    for (int k = 0; k < 3; k++) minlight[k] = p->min_colour[k] * (float) level;

    float colour[3];
    for (int upper = 1; upper >= 0; upper--) {
        const char *level_key = upper ? "_sunlight2" : "_sunlight3";
        double dome = number_key(&r, level_key, 0, not_negative, "below 0") * p->range;
        colour_key(&r,
                   upper ? key_or(&r, "_sunlight2_color", "_sunlight_color2")
                         : key_or(&r, "_sunlight3_color", "_sunlight_color3"),
                   colour);
        if (dome > 0 && !add_dome(p, 0, dome, colour, upper, p->anglescale, p->dome_dirt))
            return false;
    }

    level = number_key(&r, "_sunlight", 0, not_negative, "below 0") * p->range;
    if (level <= 0) return true;
    colour_key(&r, "_sunlight_color", colour);
    double m[3] = {0, -90, 0}, dir[3];
    const char *mangle_key = key_or(&r, "_sun_mangle", "_sunlight_mangle");
    const char *s = value_of(&r, mangle_key);
    if (s && al_read_numbers(s, m, 3) < 2) {
        warn(&r, "key \"%s\" is \"%s\", not \"yaw pitch [roll]\"", mangle_key, s, "0 -90 0");
        m[0] = 0, m[1] = -90;
    }
    mangle_dir(m[0], m[1], dir);
    double penumbra = number_key(&r, "_sunlight_penumbra", 0, is_half_cone, "not between 0 and 90");
    return add_sun(p, 0, 0, level, colour, dir, penumbra, p->anglescale, p->sun_dirt);
}

/* --- lamps ---------------------------------------------------------------------------- */

/* A light entity as its keys describe it, before it is placed. */
typedef struct lamp {
    rad_light l;     /* kind, level, wait, delay, falloff, angle scale, colour, spot */
    double deviance; /* "_deviance": copies within a ball of this radius */
    int samples;     /* "_samples": how many (the light itself among them) */
} lamp;

/* Places lamp T at ORIGIN (DIR for a spot when not NULL): the light, and its jittered
 * copies when it has a deviance. Light of delay 4 goes to the floors. */
static bool place(parse *p, const lamp *t, int entity, const double origin[3], const double *dir,
                  uint64_t seed)
{
    rad_light l = t->l;
    al_copy(origin, l.origin);
    if (dir) al_copy(dir, l.dir);
    int n = t->deviance > 0 ? t->samples : 1;
    /* ericw-tools shares the level among the copies for every falloff but linear and
     * local minlight, which it gives the whole level each. */
    if (n > 1 && l.delay != 0 && l.delay != 4) l.level /= n;
    l.range = light_range(&l);
    light_list *to = l.delay == 4 ? &p->floors : &p->lights;
    uint64_t state = seed;
    for (int i = 0; i < n; i++) {
        rad_light c = l;
        if (i > 0) {
            double o[3];
            do {
                for (int k = 0; k < 3; k++) o[k] = next_unit(&state) * 2 - 1;
            } while (al_dot(o, o) > 1);
            al_madd(origin, o, t->deviance, c.origin);
        }
        c.entity = entity;
        c.cluster =
            al_world_vis_leaf_count(p->world) > 0 ? al_world_vis_leaf_at(p->world, c.origin) : -1;
        if (!push(to, &c)) return false;
    }
    return true;
}

/* --- surface lights --------------------------------------------------------------------- */

typedef struct surface {
    parse *p;
    const lamp *template;
    int entity;
    double offset;  /* "_surface_offset": units off the face */
    bool spotlight; /* "_surface_spotlight": each copy a spot along the face's normal */
    const double *normal;
    int placed;
    bool failed; /* memory ran out */
} surface;

/* The part of POLY (N points) on the side SIGN of the plane x[AXIS] = AT into OUT; returns
 * its point count. */
static int clip_polygon(const double (*poly)[3], int n, int axis, double at, double sign,
                        double (*out)[3])
{
    int m = 0;
    for (int i = 0; i < n && m < MAX_POINTS; i++) {
        const double *a = poly[i], *b = poly[(i + 1) % n];
        double da = (a[axis] - at) * sign, db = (b[axis] - at) * sign;
        if (da >= 0) al_copy(a, out[m++]);
        if (m < MAX_POINTS && ((da > 0 && db < 0) || (da < 0 && db > 0)))
            al_lerp(a, b, da / (da - db), out[m++]);
    }
    return m;
}

/* Lays lights over POLY (N points) as GLQuake cut faces into pieces for its warped
 * surfaces (and ericw-tools its surface lights): across each axis in turn, a piece is cut
 * at the multiple of AL_RAD_SURFACE_STEP nearest its middle unless that leaves less than
 * SURFACE_MIN on a side; each piece left uncut gets a light above its centroid, unless
 * that point is in solid (the face is covered there) or outside the map. */
static void cover(surface *s, const double (*poly)[3], int n)
{
    if (s->failed || n < 3) return;
    double lo[3], hi[3];
    al_bounds_clear(lo, hi);
    for (int i = 0; i < n; i++) al_bounds_add(poly[i], lo, hi);
    for (int axis = 0; axis < 3; axis++) {
        double at =
            AL_RAD_SURFACE_STEP * floor((lo[axis] + hi[axis]) * 0.5 / AL_RAD_SURFACE_STEP + 0.5);
        if (hi[axis] - at < SURFACE_MIN || at - lo[axis] < SURFACE_MIN) continue;
        double piece[MAX_POINTS][3];
        int m = clip_polygon(poly, n, axis, at, 1, piece);
        cover(s, (const double(*)[3]) piece, m);
        m = clip_polygon(poly, n, axis, at, -1, piece);
        cover(s, (const double(*)[3]) piece, m);
        return;
    }
    /* The area centroid, by a fan from the first point. */
    double c[3] = {0, 0, 0}, area = 0;
    for (int i = 1; i + 1 < n; i++) {
        double e1[3], e2[3], x[3];
        al_sub(poly[i], poly[0], e1);
        al_sub(poly[i + 1], poly[0], e2);
        al_cross(e1, e2, x);
        double a = al_length(x) * 0.5;
        for (int k = 0; k < 3; k++) c[k] += a * (poly[0][k] + poly[i][k] + poly[i + 1][k]) / 3.0;
        area += a;
    }
    if (!(area > 0)) return;
    al_scale(c, 1.0 / area, c);
    al_madd(c, s->normal, s->offset, c);
    const al_world *w = s->p->world;
    if (al_world_point_solid(w, 0, c) ||
        (al_world_vis_leaf_count(w) > 0 && al_world_vis_leaf_at(w, c) < 0))
        return;
    if (!place(s->p, s->template, s->entity, c, s->spotlight ? s->normal : NULL,
               (uint64_t) s->entity * 1000003u + (uint64_t) s->placed))
        s->failed = true;
    s->placed++;
}

/* Copies of template T over every face of material NAME (ericw-tools' "_surface"). */
static bool add_surface_lights(parse *p, const reader *r, const lamp *t, const char *name)
{
    surface s = {p, t, r->entity, number_key(r, "_surface_offset", 2, NULL, ""),
                 number_key(r, "_surface_spotlight", 0, is_switch, "not 0 or 1") == 1};
    /* ericw-tools takes an offset of 0 for its default. */
    if (s.offset == 0) s.offset = 2;
    lamp spot = *t;
    if (s.spotlight && spot.l.kind != RAD_SPOT) {
        double cone = number_key(r, "angle", 40, is_cone, "not between 0 and 180");
        if (cone == 0) cone = 40;
        spot.l.kind = RAD_SPOT;
        spot.l.cos_outer = spot.l.cos_inner = cos(cone * 0.5 * M_PI / 180.0);
        s.template = &spot;
    }
    const al_face_polys *fp = p->polys;
    const al_input *in = p->input;
    int faces = 0;
    for (int k = 0; k < fp->face_count && !s.failed; k++) {
        const al_face_poly *f = &fp->faces[k];
        if (f->material < 0 || f->material >= in->material_count) continue;
        const al_material_desc *m = &in->materials[f->material];
        if (!m->name || strcasecmp(m->name, name) != 0) continue;
        if (m->flags &
            (AL_MATERIAL_NODRAW | AL_MATERIAL_HINT | AL_MATERIAL_CLIP | AL_MATERIAL_TRIGGER))
            continue;
        if (f->point_count > MAX_POINTS) continue;
        faces++;
        s.normal = f->normal;
        cover(&s, (const double(*)[3]) fp->points[f->first_point], f->point_count);
    }
    if (s.failed) return false;
    if (s.placed == 0) {
        const al_entity_desc *e = &in->entities[r->entity];
        al_diag_add(p->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, r->entity, -1, -1, e->line, -1,
                    faces ? "%s with \"_surface\" \"%s\": its faces are all covered; it gives "
                            "no light"
                          : "%s with \"_surface\" \"%s\": no face has that material; it gives "
                            "no light",
                    e->classname, name);
    }
    return true;
}

/* --- light entities --------------------------------------------------------------------- */

/* The spot of R's entity into T (a target's origin, or a mangle); false if it is none. */
static bool read_spot(parse *p, const reader *r, lamp *t)
{
    const al_entity_desc *ent = &p->input->entities[r->entity];
    const char *cls = ent->classname;
    const char *target = value_of(r, "target");
    const char *mangle = value_of(r, "mangle");
    if (target && *target) {
        for (int i = 0; i < p->input->entity_count; i++) {
            const char *name = al_entity_value(&p->input->entities[i], "targetname");
            double to[3];
            if (name && strcmp(name, target) == 0 && entity_origin(&p->input->entities[i], to)) {
                al_sub(to, t->l.origin, t->l.dir);
                if (al_normalize(t->l.dir, t->l.dir) > 0) return true;
            }
        }
        al_diag_add(p->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, r->entity, -1, -1, ent->line, -1,
                    "%s targets \"%s\", which is not an entity with an origin; it is a "
                    "point light",
                    cls, target);
    } else if (mangle) {
        double m[3] = {0, 0, 0};
        if (al_read_numbers(mangle, m, 3) >= 2) {
            mangle_dir(m[0], m[1], t->l.dir);
            return true;
        }
        warn(r, "key \"%s\" is \"%s\", not \"yaw pitch [roll]\"", "mangle", mangle,
             "a point light");
    }
    return false;
}

/* The cone of a spot: "angle" is its full angle (Quake's; default 40), "_cone" half of it
 * (Quake II's, as ericw-tools reads it), "_softangle" the full angle of the core that
 * gets the whole light, from which it fades to nothing at the cone (default: none, a hard
 * edge as in Quake). */
static void read_cone(const reader *r, lamp *t)
{
    double cone = 0;
    if (value_of(r, "_cone"))
        cone = 2 * number_key(r, "_cone", 20, is_half_cone, "not between 0 and 90");
    else
        cone = number_key(r, "angle", 40, is_cone, "not between 0 and 180");
    if (cone == 0) cone = 40;
    double soft = number_key(r, "_softangle", 0, not_negative, "below 0");
    if (soft <= 0 || soft > cone) soft = cone;
    t->l.kind = RAD_SPOT;
    t->l.cos_outer = cos(cone * 0.5 * M_PI / 180.0);
    t->l.cos_inner = cos(soft * 0.5 * M_PI / 180.0);
}

/* The lightmap style of R's light into *STYLE: "style", or for a light a trigger switches
 * (it has a targetname) one from 32 up per targetname, in the order they first appear, as
 * ericw-tools numbers them (its "style" is then overridden). False if memory runs out. */
static bool read_style(parse *p, const reader *r, int *style)
{
    *style = (int) number_key(r, "style", 0, is_style, "not a whole number from 0 to 254");
    const char *name = value_of(r, "targetname");
    if (!name || !*name) return true;
    int i = 0;
    while (i < p->target_count && strcmp(p->targets[i], name) != 0) i++;
    if (i == p->target_count) {
        const char **t = realloc(p->targets, (size_t) (i + 1) * sizeof *t);
        if (!t) return false;
        p->targets = t;
        p->targets[p->target_count++] = name;
    }
    *style = 32 + i;
    return true;
}

/* Light entity E: a lamp, spot, sun, sky dome, local minlight or surface light template. */
static bool read_light(parse *p, int e)
{
    const al_entity_desc *ent = &p->input->entities[e];
    const char *cls = ent->classname;
    reader rd = {p->input, e, p->diags}, *r = &rd;
    lamp t = {.l = {.kind = RAD_POINT, .entity = e, .cluster = -1}};
    if (!entity_origin(ent, t.l.origin)) {
        al_diag_add(p->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                    "%s has no usable \"origin\"; it gives no light", cls);
        return true;
    }
    const char *key = key_or(r, "light", "_light");
    t.l.level = number_key(r, key, 300, NULL, "");
    if (t.l.level < 0) {
        al_diag_add(p->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, e, -1, -1, ent->line, -1,
                    "%s has a negative \"%s\" (%g): negative lights are not supported; it "
                    "gives no light",
                    cls, key, t.l.level);
        return true;
    }
    if (t.l.level == 0) return true;
    t.l.level *= p->range;
    t.l.wait = number_key(r, "wait", 1, positive, "not above 0") * p->dist;
    t.l.delay = (int) number_key(r, "delay", 0, is_delay, "not one of 0 to 5");
    t.l.falloff = number_key(r, "_falloff", 0, not_negative, "below 0");
    if (t.l.falloff > 0 && t.l.delay != 0) {
        char format[120];
        snprintf(format, sizeof format,
                 "key \"%%s\" is \"%%s\", but \"delay\" is %d: it "
                 "applies to linear falloff (delay 0) only",
                 t.l.delay);
        warn(r, format, "_falloff", value_of(r, "_falloff"), "the delay's falloff");
        t.l.falloff = 0;
    }
    const char *as_key = key_or(r, "_anglescale", "_anglesense");
    t.l.anglescale = number_key(r, as_key, p->anglescale, is_fraction, "not between 0 and 1");
    colour_key(r, "_color", t.l.colour);
    if (!read_style(p, r, &t.l.style)) return false;
    t.l.dirt = dirt_key(r, "_dirt", p->dirt_on);
    t.l.dirt_scale = (float) number_key(r, "_dirtscale", 0, not_negative, "below 0");
    t.l.dirt_gain = (float) number_key(r, "_dirtgain", 0, not_negative, "below 0");
    t.deviance = number_key(r, "_deviance", 0, not_negative, "below 0");
    t.samples =
        (int) number_key(r, "_samples", 16, is_samples, "not a whole number from 1 to 1024");
    bool spot = read_spot(p, r, &t);

    /* "_sun" "1": a sun, shining along the direction it aims, through sky faces. */
    if (number_key(r, "_sun", 0, NULL, "") == 1) {
        if (!spot) al_set(0, 0, -1, t.l.dir);
        return add_sun(p, e, t.l.style, t.l.level, t.l.colour, t.l.dir, fmin(t.deviance, 90),
                       t.l.anglescale, t.l.dirt);
    }
    /* "_sunlight2" or "_sunlight3" "1": a sky dome of its level and colour. */
    for (int upper = 1; upper >= 0; upper--)
        if (number_key(r, upper ? "_sunlight2" : "_sunlight3", 0, NULL, "") == 1)
            return add_dome(p, t.l.style, t.l.level, t.l.colour, upper, t.l.anglescale, t.l.dirt);
    if (spot) read_cone(r, &t);

    const char *material = value_of(r, "_surface");
    if (material && *material) return add_surface_lights(p, r, &t, material);

    if (t.l.delay != 4 && al_world_point_solid(p->world, 0, t.l.origin))
        al_diag_add(p->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                    "%s at (%g %g %g) is inside solid; little of its light gets out", cls,
                    t.l.origin[0], t.l.origin[1], t.l.origin[2]);
    return place(p, &t, e, t.l.origin, NULL, (uint64_t) e * 2654435761u + 1);
}

/* The minimum light of brush entity E into OUT, when it sets its own "_minlight" (else
 * OUT keeps the worldspawn's), and whether its faces take dirt into *NO_DIRT. */
static void read_minlight(parse *p, int e, const float world[3], float out[3], uint8_t *no_dirt)
{
    reader r = {p->input, e, p->diags};
    *no_dirt = number_key(&r, "_dirt", 0, is_dirt_switch, "not -1, 0 or 1") == -1;
    memcpy(out, world, 3 * sizeof *out);
    if (!value_of(&r, "_minlight")) return;
    double level = number_key(&r, "_minlight", 0, not_negative, "below 0") * p->range;
    const char *colour = key_or(&r, "_mincolor", "_minlight_color");
    if (value_of(&r, colour))
        colour_key(&r, colour, out);
    else
        memcpy(out, p->min_colour, sizeof p->min_colour);
    for (int k = 0; k < 3; k++) out[k] *= (float) level;
}

void al_rad_lights_free(rad_lights *lights)
{
    if (!lights) return;
    free(lights->lights);
    free(lights->floors);
    free(lights->minlight);
    free(lights->no_dirt);
    memset(lights, 0, sizeof *lights);
}

bool al_rad_parse_lights(const al_world *world, const al_input *input, const al_face_polys *polys,
                         rad_lights *out, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    parse p = {.world = world,
               .input = input,
               .polys = polys,
               .diags = diags,
               .anglescale = 0.5,
               .dist = 1,
               .range = 1};
    out->minlight = calloc((size_t) input->entity_count + 1, sizeof *out->minlight);
    out->no_dirt = calloc((size_t) input->entity_count + 1, 1);
    if (!out->minlight || !out->no_dirt) goto nomem;
    float world_min[3] = {0, 0, 0};
    if (input->entity_count > 0 && !read_world(&p, world_min)) goto nomem;
    for (int e = 0; e < input->entity_count; e++) {
        const al_entity_desc *ent = &input->entities[e];
        const char *cls = ent->classname ? ent->classname : "";
        if (e == 0) {
            memcpy(out->minlight[0], world_min, sizeof world_min);
        } else if (strncasecmp(cls, "light", 5) == 0) {
            memcpy(out->minlight[e], world_min, sizeof world_min);
            if (!read_light(&p, e)) goto nomem;
        } else {
            read_minlight(&p, e, world_min, out->minlight[e], &out->no_dirt[e]);
        }
    }
    /* The domes go last: the slowest to shoot, they come after the first lit frame. */
    for (int32_t i = 0; i < p.domes.count; i++)
        if (!push(&p.lights, &p.domes.items[i])) goto nomem;
    free(p.domes.items);
    free(p.targets);
    out->lights = p.lights.items;
    out->count = p.lights.count;
    out->dome_count = p.domes.count;
    out->floors = p.floors.items;
    out->floor_count = p.floors.count;
    /* Dirt is worth its rays only when something takes it. */
    out->dirt = p.dirt;
    for (int32_t i = 0; i < out->count; i++) out->dirt.used |= out->lights[i].dirt;
    for (int32_t i = 0; i < out->floor_count; i++) out->dirt.used |= out->floors[i].dirt;
    for (int e = 0; e < input->entity_count && p.dirt.minlight; e++)
        for (int k = 0; k < 3; k++) out->dirt.used |= out->minlight[e][k] > 0;
    return true;
nomem:
    free(p.targets);
    free(p.lights.items);
    free(p.floors.items);
    free(p.domes.items);
    al_rad_lights_free(out);
    return false;
}
