/* Light sources from entities, with Quake's keys (see al-rad.h for the conventions). */
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

/* A number key: FALLBACK when absent; a warning and FALLBACK when not a number or when
 * CHECK rejects it. */
static double number_key(const reader *r, const char *key, double fallback,
                         bool (*check)(double), const char *rule)
{
    const char *s = al_entity_value(&r->input->entities[r->entity], key);
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
    return v > 0 && v < 180;
}

static bool not_negative(double v)
{
    return v >= 0;
}

/* "r g b" in 0..255 (or 0..1 when no component exceeds 1) into COLOUR; white if absent. */
static void colour_key(const reader *r, const char *key, float colour[3])
{
    colour[0] = colour[1] = colour[2] = 1;
    const char *s = al_entity_value(&r->input->entities[r->entity], key);
    if (!s) return;
    double c[3];
    if (al_read_numbers(s, c, 3) != 3 || c[0] < 0 || c[1] < 0 || c[2] < 0) {
        warn(r, "key \"%s\" is \"%s\", not three numbers of at least 0", key, s, "white");
        return;
    }
    double scale = c[0] > 1 || c[1] > 1 || c[2] > 1 ? 1.0 / 255.0 : 1.0;
    for (int k = 0; k < 3; k++) colour[k] = (float) fmin(c[k] * scale, 1.0);
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

/* How far L adds at least one light level (at normal incidence). */
static double light_range(const rad_light *l)
{
    double v = fabs(l->level);
    switch (l->delay) {
    case 0: return v / l->wait;
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
    case 0: v = l->level - l->wait * d; break;
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
        if (c <= l->cos_outer) return 0;
        if (c < l->cos_inner) v *= (c - l->cos_outer) / (l->cos_inner - l->cos_outer);
    }
    return v * (0.5 + 0.5 * cos_angle);
}

static bool add_light(rad_light **items, int *count, int *capacity, const rad_light *l)
{
    if (*count == *capacity) {
        int cap = *capacity ? *capacity * 2 : 64;
        rad_light *p = realloc(*items, (size_t) cap * sizeof *p);
        if (!p) return false;
        *items = p;
        *capacity = cap;
    }
    (*items)[(*count)++] = *l;
    return true;
}

/* The sky dome of worldspawn "_sunlight2": AL_RAD_DOME suns from directions spread
 * evenly over the upper hemisphere (a Fibonacci spiral), their levels scaled so that an
 * upward face under open sky gets LEVEL in all. Returns false if memory runs out. */
static bool add_dome(rad_light **items, int *count, int *capacity, double level,
                     const float colour[3])
{
    double dirs[AL_RAD_DOME][3], weight = 0;
    const double golden = M_PI * (3.0 - sqrt(5.0));
    for (int i = 0; i < AL_RAD_DOME; i++) {
        double z = 1.0 - (i + 0.5) / AL_RAD_DOME; /* toward the sky: z in (0, 1) */
        double r = sqrt(fmax(0.0, 1.0 - z * z)), a = golden * i;
        /* The direction light travels: down from that point of the sky. */
        dirs[i][0] = -r * cos(a);
        dirs[i][1] = -r * sin(a);
        dirs[i][2] = -z;
        weight += 0.5 + 0.5 * z; /* Quake's angle scale on an upward face */
    }
    for (int i = 0; i < AL_RAD_DOME; i++) {
        rad_light l = {.kind = RAD_SUN, .entity = 0, .level = level / weight, .wait = 1,
                       .delay = 3, .range = INFINITY, .cluster = -1, .dome = true};
        memcpy(l.colour, colour, sizeof l.colour);
        al_copy(dirs[i], l.dir);
        if (!add_light(items, count, capacity, &l)) return false;
    }
    return true;
}

int al_rad_parse_lights(const al_world *world, const al_input *input, rad_light **out,
                        al_diag_list *diags)
{
    rad_light *items = NULL;
    int count = 0, capacity = 0;
    double dome = 0;
    float dome_colour[3] = {1, 1, 1};
    for (int e = 0; e < input->entity_count; e++) {
        const al_entity_desc *ent = &input->entities[e];
        const char *cls = ent->classname ? ent->classname : "";
        reader r = {input, e, diags};
        if (e == 0) {
            if (al_entity_value(ent, "_sunlight3"))
                al_diag_add(diags, AL_SEVERITY_NOTE, AL_DIAG_ENTITY, 0, -1, -1, ent->line, -1,
                            "worldspawn \"_sunlight3\" (light from the lower sky) is not "
                            "supported; \"_sunlight\" and \"_sunlight2\" are");
            /* The sky dome: added last, after every other light. */
            dome = number_key(&r, "_sunlight2", 0, not_negative, "below 0");
            colour_key(&r, "_sunlight2_color", dome_colour);
            /* The sun. */
            double level = number_key(&r, "_sunlight", 0, not_negative, "below 0");
            if (level <= 0) continue;
            rad_light l = {.kind = RAD_SUN, .entity = 0, .level = level, .wait = 1,
                           .delay = 3, .range = INFINITY, .cluster = -1};
            colour_key(&r, "_sunlight_color", l.colour);
            double m[3] = {0, -90, 0};
            const char *s = al_entity_value(ent, "_sun_mangle");
            if (s && al_read_numbers(s, m, 3) < 2) {
                warn(&r, "key \"%s\" is \"%s\", not \"yaw pitch [roll]\"", "_sun_mangle", s,
                     "0 -90 0");
                m[0] = 0, m[1] = -90;
            }
            mangle_dir(m[0], m[1], l.dir);
            if (!add_light(&items, &count, &capacity, &l)) goto nomem;
            continue;
        }
        if (strncasecmp(cls, "light", 5) != 0) continue;
        rad_light l = {.kind = RAD_POINT, .entity = e, .cluster = -1};
        if (!entity_origin(ent, l.origin)) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                        "%s has no usable \"origin\"; it gives no light", cls);
            continue;
        }
        const char *key = al_entity_value(ent, "light") ? "light" : "_light";
        l.level = number_key(&r, key, 300, NULL, "");
        if (l.level < 0) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, e, -1, -1, ent->line, -1,
                        "%s has a negative \"%s\" (%g): negative lights are not supported; it "
                        "gives no light", cls, key, l.level);
            continue;
        }
        if (l.level == 0) continue;
        l.wait = number_key(&r, "wait", 1, positive, "not above 0");
        l.delay = (int) number_key(&r, "delay", 0, is_delay, "not one of 0 to 5");
        if (l.delay == 4) l.delay = 3;
        colour_key(&r, "_color", l.colour);

        /* Spotlight: a target, or a mangle. */
        const char *target = al_entity_value(ent, "target");
        const char *mangle = al_entity_value(ent, "mangle");
        bool spot = false;
        if (target && *target) {
            for (int t = 0; t < input->entity_count && !spot; t++) {
                const char *name = al_entity_value(&input->entities[t], "targetname");
                double to[3];
                if (name && strcmp(name, target) == 0 &&
                    entity_origin(&input->entities[t], to)) {
                    al_sub(to, l.origin, l.dir);
                    spot = al_normalize(l.dir, l.dir) > 0;
                }
            }
            if (!spot)
                al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                            "%s targets \"%s\", which is not an entity with an origin; it is a "
                            "point light", cls, target);
        } else if (mangle) {
            double m[3] = {0, 0, 0};
            if (al_read_numbers(mangle, m, 3) >= 2) {
                mangle_dir(m[0], m[1], l.dir);
                spot = true;
            } else {
                warn(&r, "key \"%s\" is \"%s\", not \"yaw pitch [roll]\"", "mangle", mangle,
                     "a point light");
            }
        }
        /* "_sun" "1": a sun, shining along the direction it aims, through sky faces. */
        if (number_key(&r, "_sun", 0, NULL, "") == 1) {
            l.kind = RAD_SUN;
            if (!spot) l.dir[0] = 0, l.dir[1] = 0, l.dir[2] = -1;
            l.delay = 3;
            l.wait = 1;
            l.range = INFINITY;
            if (!add_light(&items, &count, &capacity, &l)) goto nomem;
            continue;
        }
        if (spot) {
            l.kind = RAD_SPOT;
            const char *cone_key = al_entity_value(ent, "_cone") ? "_cone" : "angle";
            double cone = number_key(&r, cone_key, 40, is_cone, "not between 0 and 180");
            double half = cone * 0.5 * M_PI / 180.0;
            l.cos_outer = cos(half);
            l.cos_inner = cos(half * 0.9);
        }
        l.range = light_range(&l);
        if (al_world_vis_leaf_count(world) > 0) l.cluster = al_world_vis_leaf_at(world, l.origin);
        if (al_world_point_solid(world, 0, l.origin))
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                        "%s at (%g %g %g) is inside solid; little of its light gets out", cls,
                        l.origin[0], l.origin[1], l.origin[2]);
        if (!add_light(&items, &count, &capacity, &l)) goto nomem;
    }
    if (dome > 0 && !add_dome(&items, &count, &capacity, dome, dome_colour)) goto nomem;
    *out = items;
    return count;
nomem:
    free(items);
    *out = NULL;
    return -1;
}
