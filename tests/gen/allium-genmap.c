/* allium-genmap: generate sealed test maps of any size.
 *
 *   allium-genmap [--brushes N] [--seed S] [--format valve|standard] -o FILE
 *   allium-genmap --style realistic [--brushes N] [--seed S] [--format ...] -o FILE
 *   allium-genmap --sample [--format valve|standard] -o FILE
 *
 * A grid of 512-unit rooms under one floor and ceiling level, joined by doorways, each
 * room furnished from: stairs with 16- or 24-unit steps, a block with a low tunnel (48
 * units high: crouch fits, stand does not), a 45 or 30 degree ramp, octagonal pillars
 * (non-axial faces), and crates. Outer walls seal it. Every room gets a light; room 0 the
 * player start. The same seed gives the same map on every machine.
 *
 * With --off-grid, a quarter of the features are instead two wedges side by side whose
 * slope points (and often another face's) lie a 1/256, 1/512 or 1/1024 unit off the grid (as
 * TrenchBroom saves vertex-edited brushes), rising to the top of a landing with a crate on it:
 * nearly coplanar slopes meeting a neighbour's face at one height. The wedges are func_detail or
 * func_group entities.
 *
 * --style realistic writes maps shaped like today's large community maps instead (see
 * realistic.h): sealed rooms and corridors as the structural shell, most brushes func_detail.
 */
#include "gen-rng.h"
#include "mapgen.h"
#include "realistic.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL  512.0
#define WALL  16.0
#define FLOOR 0.0
#define CEIL  256.0
#define DOOR_W 64.0
#define DOOR_H 112.0

typedef gen_rng rng;

static int pick(rng *r, int n)
{
    return gen_pick(r, n);
}

/* A wall along AXIS (0: runs along x at y = AT; 1: runs along y at x = AT) from A0 to A1,
 * with an optional doorway centred at DOOR (NAN: none). */
static void wall(mapgen *g, int axis, double at, double a0, double a1, double door,
                 const char *material)
{
    double w0 = at - WALL / 2, w1 = at + WALL / 2;
#define BOX(a, b, z0, z1)                                                                  \
    (axis == 0 ? mapgen_box(g, a, w0, z0, b, w1, z1, material)                             \
               : mapgen_box(g, w0, a, z0, w1, b, z1, material))
    if (isnan(door)) {
        BOX(a0, a1, FLOOR, CEIL);
        return;
    }
    BOX(a0, door - DOOR_W / 2, FLOOR, CEIL);
    BOX(door + DOOR_W / 2, a1, FLOOR, CEIL);
    BOX(door - DOOR_W / 2, door + DOOR_W / 2, FLOOR + DOOR_H, CEIL);
#undef BOX
}

static void octagon(double cx, double cy, double r, double xy[8][2])
{
    /* Integer vertices, as a designer snapping to the grid would place them. */
    for (int i = 0; i < 8; i++) {
        double a = (i + 0.5) * M_PI / 4;
        xy[i][0] = cx + round(r * cos(a));
        xy[i][1] = cy + round(r * sin(a));
    }
}

/* A wedge of an off-grid pair, written as an entity of its own after the world's brushes. */
typedef struct wedge {
    double x0, y0, x1, y1, z0, z1;
    double nudge[5][3][3]; /* of its faces' points, see mapgen_ramp_nudged */
    bool detail;           /* func_detail, else func_group */
} wedge;

typedef struct wedge_list {
    wedge *items; /* malloc'd */
    int count, capacity;
} wedge_list;

static bool push_wedge(wedge_list *l, const wedge *w)
{
    if (l->count == l->capacity) {
        int capacity = l->capacity ? 2 * l->capacity : 16;
        wedge *items = realloc(l->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        l->items = items;
        l->capacity = capacity;
    }
    l->items[l->count++] = *w;
    return true;
}

/* Two wedges along +x from (A0, B0), side by side, a landing at their high end and a crate
 * on it, within [A0, A1] x [B0, B1]: the wedges' slopes end at the landing's top, and one
 * or two of each slope's points are moved off the grid, each wedge its own way. */
static void off_grid_wedges(mapgen *g, rng *r, double a0, double b0, double a1, double b1,
                            wedge_list *wedges)
{
    double rise = 32 + 16 * pick(r, 3);
    double run = fmin(64 + 32 * pick(r, 3), a1 - a0 - 48);
    double width = fmin(32 + 16 * pick(r, 3), floor((b1 - b0) / 2));
    double off = 1.0 / (256 << pick(r, 3));
    mapgen_box(g, a0 + run, b0, FLOOR, a1, b0 + 2 * width, FLOOR + rise, "landing");
    mapgen_box(g, a0 + run, b0, FLOOR + rise, a0 + run + 32, b0 + 32, FLOOR + rise + 32, "crate");
    bool detail = pick(r, 3) != 0;
    for (int i = 0; i < 2; i++) {
        wedge w = {.x0 = a0,
                   .y0 = b0 + i * width,
                   .x1 = a0 + run,
                   .y1 = b0 + (i + 1) * width,
                   .z0 = FLOOR,
                   .z1 = FLOOR + rise,
                   .detail = detail};
        /* The slope, and often a face beside it, one or two points each. */
        for (int face = 0; face < 5; face++) {
            if (face != 2 && pick(r, 3) != 0) continue;
            for (int n = 1 + pick(r, 2); n > 0; n--) {
                int point = pick(r, 3), axis = pick(r, 3);
                w.nudge[face][point][axis] += pick(r, 2) ? off : -off;
            }
        }
        if (!push_wedge(wedges, &w)) return;
    }
}

/* Furnishes the room whose interior is [x0, x1] x [y0, y1]. Features stay clear of the
 * doorways (the middle third of each wall). WEDGES, when not NULL, receives off-grid
 * wedges for a quarter of the features. */
static void furnish(mapgen *g, rng *r, double x0, double y0, double x1, double y1, int budget,
                    wedge_list *wedges)
{
    int start = mapgen_brush_count(g);
    /* Four quadrants, each gets one feature. */
    double mx = 0.5 * (x0 + x1), my = 0.5 * (y0 + y1);
    double quads[4][4] = {{x0 + 24, y0 + 24, mx - 56, my - 56},
                          {mx + 56, y0 + 24, x1 - 24, my - 56},
                          {x0 + 24, my + 56, mx - 56, y1 - 24},
                          {mx + 56, my + 56, x1 - 24, y1 - 24}};
    for (int q = 0; q < 4 && mapgen_brush_count(g) - start < budget; q++) {
        double a0 = quads[q][0], b0 = quads[q][1], a1 = quads[q][2], b1 = quads[q][3];
        double w = a1 - a0, h = b1 - b0;
        if (wedges && pick(r, 4) == 0) {
            off_grid_wedges(g, r, a0, b0, a1, b1, wedges);
            continue;
        }
        switch (pick(r, 5)) {
        case 0: { /* stairs up to a landing */
            double rise = pick(r, 2) ? 16 : 24;
            int steps = 3 + pick(r, 3);
            double run = floor(w / (steps + 1) / 8) * 8;
            if (run < 16) run = 16;
            mapgen_stairs(g, a0, b0, FLOOR, 0, steps, rise, run, floor(h / 8) * 8, "stairs");
            mapgen_box(g, a0 + steps * run, b0, FLOOR, a1, b0 + floor(h / 8) * 8,
                       FLOOR + steps * rise, "landing");
            break;
        }
        case 1: { /* a block with a low tunnel through it, along y */
            double cx = floor((a0 + a1) / 2 / 8) * 8;
            mapgen_box(g, a0, b0, FLOOR, cx - 32, b1, FLOOR + 112, "tunnel");
            mapgen_box(g, cx + 32, b0, FLOOR, a1, b1, FLOOR + 112, "tunnel");
            mapgen_box(g, cx - 32, b0, FLOOR + 48, cx + 32, b1, FLOOR + 112, "tunnel");
            break;
        }
        case 2: { /* a ramp, 45 or 30 degrees, along x */
            double len = floor(w / 8) * 8;
            double height = pick(r, 2) ? len : floor(len * tan(M_PI / 6));
            if (height > 160) height = 160;
            mapgen_ramp(g, a0, b0, a0 + len, b1, FLOOR, FLOOR + height, 0, pick(r, 2) ? 1 : -1,
                        "ramp");
            break;
        }
        case 3: { /* octagonal pillars */
            int n = 1 + pick(r, 3);
            for (int i = 0; i < n; i++) {
                double xy[8][2];
                double rad = 12 + 4 * pick(r, 4);
                double cx = a0 + rad + (w - 2 * rad) * (i + 0.5) / n;
                double cy = b0 + rad + (h - 2 * rad) * ((double) pick(r, 100) / 100);
                octagon(floor(cx), floor(cy), rad, xy);
                mapgen_prism(g, 8, (const double (*)[2]) xy, FLOOR, CEIL, "pillar");
            }
            break;
        }
        default: { /* crates, some stacked */
            int n = 1 + pick(r, 3);
            for (int i = 0; i < n; i++) {
                double s = 32 + 16 * pick(r, 3);
                double cx = a0 + (w - s) * (double) pick(r, 100) / 100;
                double cy = b0 + (h - s) * (double) pick(r, 100) / 100;
                double base = FLOOR + (i > 0 && pick(r, 2) ? 64 : 0);
                mapgen_box(g, floor(cx), floor(cy), base, floor(cx) + s, floor(cy) + s, base + s,
                           "crate");
            }
            break;
        }
        }
    }
    /* A pool over a third of the rooms' floors, through what stands there (Quake's liquids
     * often fill around solid brushes): water, slime or lava by place. Chosen without
     * drawing from R, so the maps' other brushes stay as they were. */
    int place = (int) (floor(x0 / 8) + floor(y0 / 8));
    if (((place % 3) + 3) % 3 == 0) {
        static const char *liquids[] = {"*water1", "*slime0", "*lava1"};
        mapgen_box(g, x0, y0, FLOOR, x1, y1, FLOOR + 40, liquids[((place / 3) % 3 + 3) % 3]);
    }
}

/* The bundled sample map (data/samples/sample.map): one designed scene that shows what
 * Allium compiles: a hall with 16-unit stairs up to a balcony, a block with a low tunnel
 * (crouch only), a 45-degree ramp, octagonal pillars, and a side room behind a door. */
static void sample(mapgen *g)
{
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "message", "Allium sample: the hall");
    /* Its textures: drawn at build time (data/samples/sample-wad.c). */
    mapgen_key(g, "wad", "allium-sample.wad");
    /* Hall: interior [0, 768] x [0, 512] x [0, 256]. */
    mapgen_box(g, -16, -16, -16, 784, 528, 0, "floor_stone");
    mapgen_box(g, -16, -16, 256, 784, 528, 272, "ceiling_plaster");
    mapgen_box(g, -16, -16, 0, 0, 528, 256, "wall_brick");
    mapgen_box(g, 0, -16, 0, 768, 0, 256, "wall_brick");
    mapgen_box(g, 0, 512, 0, 768, 528, 256, "wall_brick");
    /* East wall with a doorway (y 224..288, 112 high) into the side room. */
    mapgen_box(g, 768, -16, 0, 784, 224, 256, "wall_brick");
    mapgen_box(g, 768, 288, 0, 784, 528, 256, "wall_brick");
    mapgen_box(g, 768, 224, 112, 784, 288, 256, "wall_brick");
    /* Stairs of 16-unit steps along +x up to a balcony at z = 128. */
    mapgen_stairs(g, 480, 16, 0, 0, 8, 16, 16, 128, "stairs_wood");
    mapgen_box(g, 608, 16, 112, 752, 496, 128, "balcony_wood");
    /* Block with a tunnel 64 wide and 48 high through it along x. */
    mapgen_box(g, 96, 352, 0, 224, 384, 112, "block_concrete");
    mapgen_box(g, 96, 448, 0, 224, 480, 112, "block_concrete");
    mapgen_box(g, 96, 384, 48, 224, 448, 112, "block_concrete");
    /* A 45-degree ramp up to a ledge. */
    mapgen_ramp(g, 288, 400, 384, 496, 0, 96, 0, 1, "ramp_metal");
    mapgen_box(g, 384, 400, 0, 448, 496, 96, "ramp_metal");
    /* Octagonal pillars. */
    const double centres[3][2] = {{96, 160}, {384, 96}, {560, 360}};
    for (int i = 0; i < 3; i++) {
        double xy[8][2];
        octagon(centres[i][0], centres[i][1], 24, xy);
        mapgen_prism(g, 8, (const double (*)[2]) xy, 0, 256, "pillar_marble");
    }
    /* Side room: interior [784, 1168] x [128, 384] x [0, 192]. */
    mapgen_box(g, 784, 112, -16, 1184, 400, 0, "floor_tiles");
    mapgen_box(g, 784, 112, 192, 1184, 400, 208, "ceiling_plaster");
    mapgen_box(g, 784, 112, 0, 1168, 128, 192, "wall_brick");
    mapgen_box(g, 784, 384, 0, 1168, 400, 192, "wall_brick");
    mapgen_box(g, 1168, 112, 0, 1184, 400, 192, "wall_brick");
    mapgen_box(g, 1040, 128, 0, 1168, 192, 32, "crate_wood");
    mapgen_box(g, 1104, 128, 32, 1168, 192, 64, "crate_wood");
    mapgen_end_entity(g);

    mapgen_begin_entity(g, "func_door");
    mapgen_key(g, "angle", "90");
    mapgen_box(g, 772, 224, 0, 780, 288, 112, "door_metal");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "info_player_start");
    mapgen_key(g, "origin", "256 256 25");
    mapgen_key(g, "angle", "0");
    mapgen_end_entity(g);
    const double lights[5][3] = {
        {192, 128, 200}, {576, 128, 200}, {192, 416, 200}, {576, 416, 200}, {976, 256, 160}};
    for (int i = 0; i < 5; i++) {
        mapgen_begin_entity(g, "light");
        mapgen_keyf(g, "origin", "%g %g %g", lights[i][0], lights[i][1], lights[i][2]);
        mapgen_key(g, "light", "300");
        mapgen_end_entity(g);
    }
}

int main(int argc, char **argv)
{
    long brushes = 200;
    uint64_t seed = 1;
    bool valve = true, want_sample = false, off_grid = false, realistic = false;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--brushes") == 0 && i + 1 < argc) {
            brushes = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "valve") == 0) valve = true;
            else if (strcmp(argv[i], "standard") == 0) valve = false;
            else {
                fprintf(stderr, "error: --format is valve or standard\n");
                return 2;
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--sample") == 0) {
            want_sample = true;
        } else if (strcmp(argv[i], "--off-grid") == 0) {
            off_grid = true;
        } else if (strcmp(argv[i], "--style") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "realistic") == 0)
                realistic = true;
            else if (strcmp(argv[i], "grid") == 0)
                realistic = false;
            else {
                fprintf(stderr, "error: --style is grid or realistic\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "usage: allium-genmap [--brushes N] [--seed S] [--style grid|realistic] "
                    "[--format valve|standard] [--off-grid] [--sample] -o FILE\n");
            return 2;
        }
    }
    if (out && want_sample) {
        mapgen *g = mapgen_create(valve);
        if (!g) return 1;
        sample(g);
        bool ok = mapgen_save(g, out);
        mapgen_destroy(g);
        if (!ok) fprintf(stderr, "error: cannot write %s\n", out);
        return ok ? 0 : 1;
    }
    if (!out || brushes < 10 || brushes > 10000000) {
        fprintf(stderr, "usage: allium-genmap [--brushes N (10..10000000)] [--seed S] "
                        "[--format valve|standard] [--off-grid] -o FILE\n");
        return 2;
    }
    if (realistic) {
        if (off_grid || brushes > REALISTIC_MAX_BRUSHES) {
            fprintf(stderr,
                    "usage: allium-genmap --style realistic [--brushes N (10..%d)] "
                    "[--seed S] [--format valve|standard] -o FILE\n",
                    REALISTIC_MAX_BRUSHES);
            return 2;
        }
        mapgen *g = mapgen_create(valve);
        if (!g) return 1;
        bool ok = realistic_map(g, brushes, seed) && mapgen_save(g, out);
        if (ok)
            fprintf(stderr, "%s: %d brushes\n", out, mapgen_brush_count(g));
        else
            fprintf(stderr, "error: cannot write %s\n", out);
        mapgen_destroy(g);
        return ok ? 0 : 1;
    }
    /* About 16 brushes a room (walls, shell share, furniture): a square grid of enough
     * rooms; the furniture budget then tops the count up to the target. */
    long rooms = (brushes + 15) / 16;
    int nx = (int) ceil(sqrt((double) rooms)), ny = (int) ((rooms + nx - 1) / nx);
    mapgen *g = mapgen_create(valve);
    if (!g) return 1;
    rng r = {seed};
    wedge_list wedges = {0};
    double w = nx * CELL, h = ny * CELL;
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "message", "Allium generated test map");
    mapgen_keyf(g, "_generator", "allium-genmap --brushes %ld --seed %llu%s", brushes,
                (unsigned long long) seed, off_grid ? " --off-grid" : "");
    /* Shell: floor and ceiling per room row, outer walls. */
    for (int y = 0; y < ny; y++) {
        mapgen_box(g, -WALL, y * CELL, FLOOR - WALL, w + WALL, (y + 1) * CELL, FLOOR, "floor");
        mapgen_box(g, -WALL, y * CELL, CEIL, w + WALL, (y + 1) * CELL, CEIL + WALL, "ceiling");
    }
    mapgen_box(g, -WALL, -WALL, FLOOR - WALL, w + WALL, 0, CEIL + WALL, "wall");
    mapgen_box(g, -WALL, h, FLOOR - WALL, w + WALL, h + WALL, CEIL + WALL, "wall");
    mapgen_box(g, -WALL, 0, FLOOR, 0, h, CEIL, "wall");
    mapgen_box(g, w, 0, FLOOR, w + WALL, h, CEIL, "wall");
    /* Interior walls with doorways, then furniture. */
    long room = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++, room++) {
            double x0 = x * CELL, y0 = y * CELL;
            if (x + 1 < nx)
                wall(g, 1, x0 + CELL, y0, y0 + CELL, y0 + CELL / 2 + 8 * (pick(&r, 9) - 4), "wall");
            if (y + 1 < ny)
                wall(g, 0, y0 + CELL, x0, x0 + CELL, x0 + CELL / 2 + 8 * (pick(&r, 9) - 4), "wall");
            long left = brushes - mapgen_brush_count(g);
            long rooms_left = (long) nx * ny - room;
            int budget = left > 0 ? (int) ((left + rooms_left - 1) / rooms_left) : 0;
            furnish(g, &r, x0 + WALL / 2, y0 + WALL / 2, x0 + CELL - WALL / 2, y0 + CELL - WALL / 2,
                    budget, off_grid ? &wedges : NULL);
        }
    mapgen_end_entity(g);
    for (int i = 0; i < wedges.count; i++) {
        const wedge *wd = &wedges.items[i];
        mapgen_begin_entity(g, wd->detail ? "func_detail" : "func_group");
        mapgen_ramp_nudged(g, wd->x0, wd->y0, wd->x1, wd->y1, wd->z0, wd->z1, 0, 1,
                           (const double (*)[3][3]) wd->nudge, "wedge");
        mapgen_end_entity(g);
    }
    free(wedges.items);
    room = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++, room++) {
            double cx = (x + 0.5) * CELL, cy = (y + 0.5) * CELL;
            mapgen_begin_entity(g, "light");
            mapgen_keyf(g, "origin", "%g %g %g", cx, cy, CEIL - 40);
            mapgen_key(g, "light", "300");
            mapgen_end_entity(g);
            if (room == 0) {
                mapgen_begin_entity(g, "info_player_start");
                /* Origin 24 above the floor, like Quake's player; at the room's centre,
                 * where no furniture stands. */
                mapgen_keyf(g, "origin", "%g %g %g", cx, cy, FLOOR + 24 + 1);
                mapgen_end_entity(g);
            }
        }
    if (!mapgen_save(g, out)) {
        fprintf(stderr, "error: cannot write %s\n", out);
        mapgen_destroy(g);
        return 1;
    }
    fprintf(stderr, "%s: %d brushes in %d rooms (%d x %d)\n", out, mapgen_brush_count(g), nx * ny,
            nx, ny);
    mapgen_destroy(g);
    return 0;
}
