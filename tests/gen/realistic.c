/* The realistic style of allium-genmap (see realistic.h).
 *
 * Rooms sit one to a 1024-unit cell of a square grid, each a closed box of its own walls
 * (16 thick) centred near its cell's centre, so the space between rooms is the void.
 * Adjacent rooms that are joined get a doorway in each facing wall at one common place and
 * a corridor, a closed tube of floor, ceiling and two walls, between the doorways: every
 * brush of the shell meets its neighbours face to face, so the map is sealed whatever is
 * joined. The shell is written first (the worldspawn), then each room's detail as one
 * func_detail entity that fills the room's share of the brush budget, then doors, lights and
 * the other point entities.
 */
#include "realistic.h"

#include "gen-rng.h"

#include <math.h>
#include <stdlib.h>

#define CELL   1024.0
#define WALL   16.0
#define DOOR_H 128.0
/* Brushes per room, about: the room count follows from it. */
#define ROOM_BRUSHES 120

typedef struct room {
    double x0, y0, x1, y1, h; /* interior [x0, x1] x [y0, y1] x [0, h] */
    double door[4];           /* doorway centre on side S (0 south y0, 1 east x1, 2 north y1,
                                 3 west x0), NAN: none */
    double door_w[4];         /* its width */
    bool sky;                 /* the ceiling is sky */
    bool pool;                /* a pool of liquid in one corner */
} room;

typedef struct joint {
    int a, b; /* rooms; b is east (a + 1) or north (a + nx) of a */
} joint;

static int find_root(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static double snap(double v, double step)
{
    return floor(v / step) * step;
}

/* A box on both dialects' grid, from an origin and sizes. */
static void box(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                const char *material)
{
    if (x1 <= x0 || y1 <= y0 || z1 <= z0) return;
    mapgen_box(g, x0, y0, z0, x1, y1, z1, material);
}

static void octagon_prism(mapgen *g, double cx, double cy, double r, double z0, double z1,
                          const char *material)
{
    double xy[8][2];
    for (int i = 0; i < 8; i++) {
        double a = (i + 0.5) * M_PI / 4;
        xy[i][0] = cx + round(r * cos(a));
        xy[i][1] = cy + round(r * sin(a));
    }
    mapgen_prism(g, 8, (const double(*)[2]) xy, z0, z1, material);
}

/* The wall on side S of room R (from A0 to A1 along it, at [C0, C1] across it), with its
 * doorway if any. */
static void room_wall(mapgen *g, const room *r, int s)
{
    bool along_x = s == 0 || s == 2;
    double c0, c1, a0, a1;
    if (along_x) {
        c0 = s == 0 ? r->y0 - WALL : r->y1;
        a0 = r->x0, a1 = r->x1;
    } else {
        c0 = s == 3 ? r->x0 - WALL : r->x1;
        a0 = r->y0 - WALL, a1 = r->y1 + WALL;
    }
    c1 = c0 + WALL;
#define WALL_BOX(p0, p1, z0, z1)                                                                   \
    (along_x ? box(g, p0, c0, z0, p1, c1, z1, "wall_stone")                                        \
             : box(g, c0, p0, z0, c1, p1, z1, "wall_stone"))
    if (isnan(r->door[s])) {
        WALL_BOX(a0, a1, 0, r->h);
        return;
    }
    double d0 = r->door[s] - r->door_w[s] / 2, d1 = r->door[s] + r->door_w[s] / 2;
    WALL_BOX(a0, d0, 0, r->h);
    WALL_BOX(d1, a1, 0, r->h);
    WALL_BOX(d0, d1, DOOR_H, r->h);
#undef WALL_BOX
}

/* The corridor from room A's side S (east or north) to room B, through their doorways.
 * *LIT: whether it is long enough for a light, at LIGHT; *DOORWAY: for a door, at its
 * middle. */
static void corridor(mapgen *g, const room *a, const room *b, int s, int *lit, double *light,
                     int *doorway)
{
    double c = a->door[s], w = a->door_w[s];
    double p0 = (s == 1 ? a->x1 : a->y1) + WALL, p1 = (s == 1 ? b->x0 : b->y0) - WALL;
    double q0 = c - w / 2 - WALL, q1 = c + w / 2 + WALL;
    *lit = p1 - p0 >= 96;
    light[0] = s == 1 ? (p0 + p1) / 2 : c;
    light[1] = s == 1 ? c : (p0 + p1) / 2;
    light[2] = DOOR_H - 24;
    *doorway = p1 - p0 >= 64;
    if (p1 <= p0) return;
#define TUBE_BOX(u0, u1, v0, v1, z0, z1, m)                                                        \
    (s == 1 ? box(g, u0, v0, z0, u1, v1, z1, m) : box(g, v0, u0, z0, v1, u1, z1, m))
    TUBE_BOX(p0, p1, q0, q1, -WALL, 0, "floor_tiles");
    TUBE_BOX(p0, p1, q0, q1, DOOR_H, DOOR_H + WALL, "ceiling_wood");
    TUBE_BOX(p0, p1, q0, q0 + WALL, 0, DOOR_H, "wall_brick");
    TUBE_BOX(p0, p1, q1 - WALL, q1, 0, DOOR_H, "wall_brick");
#undef TUBE_BOX
}

/* Trim around the room's foot and top: skirting (8 deep, 16 high) and a cornice, broken at
 * the doorways. */
static void trim(mapgen *g, const room *r)
{
    for (int s = 0; s < 4; s++) {
        bool along_x = s == 0 || s == 2;
        double a0 = along_x ? r->x0 : r->y0, a1 = along_x ? r->x1 : r->y1;
        double c = s == 0 ? r->y0 : s == 1 ? r->x1 : s == 2 ? r->y1 : r->x0;
        double in = s == 0 || s == 3 ? 8 : -8;
        double c0 = fmin(c, c + in), c1 = fmax(c, c + in);
        double pieces[2][2] = {{a0, a1}, {0, 0}};
        int n = 1;
        if (!isnan(r->door[s])) {
            pieces[0][1] = r->door[s] - r->door_w[s] / 2;
            pieces[1][0] = r->door[s] + r->door_w[s] / 2;
            pieces[1][1] = a1;
            n = 2;
        }
        for (int i = 0; i < n; i++)
            for (int top = 0; top < 2; top++) {
                double z0 = top ? r->h - 16 : 0, z1 = top ? r->h : 16;
                if (along_x)
                    box(g, pieces[i][0], c0, z0, pieces[i][1], c1, z1, "trim_metal");
                else
                    box(g, c0, pieces[i][0], z0, c1, pieces[i][1], z1, "trim_metal");
            }
    }
}

/* Ribs up the walls every 96 or 128 units, clear of the doorways. */
static void ribs(mapgen *g, gen_rng *rng, const room *r)
{
    double step = gen_pick(rng, 2) ? 96 : 128;
    for (int s = 0; s < 4; s++) {
        bool along_x = s == 0 || s == 2;
        double a0 = along_x ? r->x0 : r->y0, a1 = along_x ? r->x1 : r->y1;
        double c = s == 0 ? r->y0 : s == 1 ? r->x1 : s == 2 ? r->y1 : r->x0;
        double in = s == 0 || s == 3 ? 16 : -16;
        double c0 = fmin(c, c + in), c1 = fmax(c, c + in);
        for (double a = a0 + step; a + 16 < a1 - 32; a += step) {
            if (!isnan(r->door[s]) && fabs(a - r->door[s]) < r->door_w[s] / 2 + 32) continue;
            if (along_x)
                box(g, a, c0, 16, a + 16, c1, r->h - 16, "rib_stone");
            else
                box(g, c0, a, 16, c1, a + 16, r->h - 16, "rib_stone");
        }
    }
}

/* Beams across the ceiling every 128 units, with a brace at each end. */
static void beams(mapgen *g, const room *r)
{
    double z0 = r->h - 32;
    for (double x = r->x0 + 128; x + 16 < r->x1 - 64; x += 128) {
        box(g, x, r->y0, z0, x + 16, r->y1, r->h, "beam_wood");
        box(g, x, r->y0, z0 - 32, x + 16, r->y0 + 32, z0, "beam_wood");
        box(g, x, r->y1 - 32, z0 - 32, x + 16, r->y1, z0, "beam_wood");
    }
}

/* A pillar: a square base, an octagonal shaft and a capital. */
static void pillar(mapgen *g, gen_rng *rng, double cx, double cy, double h)
{
    double rad = 12 + 4 * gen_pick(rng, 4);
    box(g, cx - rad - 8, cy - rad - 8, 0, cx + rad + 8, cy + rad + 8, 16, "pillar_base");
    octagon_prism(g, cx, cy, rad, 16, h - 16, "pillar_marble");
    box(g, cx - rad - 8, cy - rad - 8, h - 16, cx + rad + 8, cy + rad + 8, h, "pillar_base");
}

/* Stairs along the west wall up to a balcony along the north wall, with railing posts. */
static void balcony(mapgen *g, gen_rng *rng, const room *r)
{
    double rise = gen_pick(rng, 2) ? 16 : 24, run = 24, width = 64;
    double top = snap((r->h - 96) / rise, 1) * rise;
    int steps = (int) (top / rise);
    double y_top = r->y1 - 96;
    if (steps < 3 || y_top - steps * run < r->y0 + 32) return;
    for (int i = 0; i < steps; i++) {
        double y1 = y_top - (steps - 1 - i) * run;
        box(g, r->x0, y1 - run, 0, r->x0 + width, y1, (i + 1) * rise, "stairs_wood");
    }
    double x1 = snap(r->x0 + (r->x1 - r->x0) * 0.6, 16);
    box(g, r->x0, y_top, top - 16, x1, r->y1, top, "balcony_wood");
    for (double x = r->x0 + width + 32; x + 8 <= x1; x += 48)
        box(g, x, y_top, top, x + 8, y_top + 8, top + 40, "railing");
    box(g, r->x0 + width, y_top, top + 40, x1, y_top + 8, top + 48, "railing");
}

/* A point on the floor of R at least MARGIN from the walls, on the 8-unit grid. */
static void floor_point(gen_rng *rng, const room *r, double margin, double *x, double *y)
{
    double w = r->x1 - r->x0 - 2 * margin, h = r->y1 - r->y0 - 2 * margin;
    *x = snap(r->x0 + margin + w * gen_pick(rng, 1000) / 1000.0, 8);
    *y = snap(r->y0 + margin + h * gen_pick(rng, 1000) / 1000.0, 8);
}

/* One prop on the floor: a table, a shelf, crates, barrels or a pillar. */
static void prop(mapgen *g, gen_rng *rng, const room *r)
{
    double x, y;
    floor_point(rng, r, 64, &x, &y);
    switch (gen_pick(rng, 6)) {
    case 0: { /* table: a top on four legs */
        double w = 64 + 16 * gen_pick(rng, 3), d = 32 + 16 * gen_pick(rng, 2);
        box(g, x, y, 28, x + w, y + d, 32, "table_wood");
        box(g, x, y, 0, x + 4, y + 4, 28, "table_wood");
        box(g, x + w - 4, y, 0, x + w, y + 4, 28, "table_wood");
        box(g, x, y + d - 4, 0, x + 4, y + d, 28, "table_wood");
        box(g, x + w - 4, y + d - 4, 0, x + w, y + d, 28, "table_wood");
        break;
    }
    case 1: { /* shelf: two uprights and three boards */
        double w = 64 + 32 * gen_pick(rng, 2);
        box(g, x, y, 0, x + 4, y + 24, 96, "shelf_wood");
        box(g, x + w - 4, y, 0, x + w, y + 24, 96, "shelf_wood");
        for (int i = 0; i < 3; i++)
            box(g, x + 4, y, 8 + 40 * i, x + w - 4, y + 24, 12 + 40 * i, "shelf_wood");
        break;
    }
    case 2:
    case 3: { /* crates, stacked */
        int n = 1 + gen_pick(rng, 4);
        double z = 0;
        for (int i = 0; i < n; i++) {
            double s = 32 + 16 * gen_pick(rng, 2), dx = 8 * gen_pick(rng, 3);
            box(g, x + dx, y + dx, z, x + dx + s, y + dx + s, z + s, "crate");
            z += s;
            if (z + 64 > r->h) break;
        }
        break;
    }
    case 4: { /* barrels */
        int n = 1 + gen_pick(rng, 3);
        for (int i = 0; i < n; i++) octagon_prism(g, x + 40 * i, y, 16, 0, 48, "barrel");
        break;
    }
    default:
        pillar(g, rng, x, y, r->h);
        break;
    }
}

/* Room R's detail up to BUDGET brushes: trim, ribs, beams, a balcony, pillar rows, then
 * props. */
static void room_detail(mapgen *g, gen_rng *rng, const room *r, int budget)
{
    int start = mapgen_brush_count(g);
    mapgen_begin_entity(g, "func_detail");
    trim(g, r);
    if (mapgen_brush_count(g) - start < budget && gen_pick(rng, 3)) ribs(g, rng, r);
    if (mapgen_brush_count(g) - start < budget && !r->sky && gen_pick(rng, 2)) beams(g, r);
    if (mapgen_brush_count(g) - start < budget && r->h >= 256 && gen_pick(rng, 2))
        balcony(g, rng, r);
    if (mapgen_brush_count(g) - start < budget && gen_pick(rng, 2)) {
        double y = snap((r->y0 + r->y1) / 2, 8) + (gen_pick(rng, 2) ? 96 : -96);
        for (double x = r->x0 + 128; x < r->x1 - 96; x += 128) pillar(g, rng, x, y, r->h);
    }
    while (mapgen_brush_count(g) - start < budget) prop(g, rng, r);
    mapgen_end_entity(g);
}

bool realistic_map(mapgen *g, long brushes, uint64_t seed)
{
    gen_rng rng = {seed};
    long count = (brushes + ROOM_BRUSHES - 1) / ROOM_BRUSHES;
    if (count < 2) count = 2;
    int nx = (int) ceil(sqrt((double) count)), ny = (int) ((count + nx - 1) / nx);
    int n = nx * ny;
    room *rooms = calloc((size_t) n, sizeof *rooms);
    joint *joints = calloc((size_t) 2 * n, sizeof *joints);
    int *parent = calloc((size_t) n, sizeof *parent);
    if (!rooms || !joints || !parent) {
        free(rooms);
        free(joints);
        free(parent);
        return false;
    }
    /* Rooms: 512 to 864 units across, 192 to 384 high, within 32 of the cell's centre, so
     * corridors are at least 64 long. */
    for (int i = 0; i < n; i++) {
        room *r = &rooms[i];
        double cx = (i % nx + 0.5) * CELL + 16 * (gen_pick(&rng, 5) - 2);
        double cy = (i / nx + 0.5) * CELL + 16 * (gen_pick(&rng, 5) - 2);
        double hx = 256 + 32 * gen_pick(&rng, 6), hy = 256 + 32 * gen_pick(&rng, 6);
        r->x0 = cx - hx, r->x1 = cx + hx, r->y0 = cy - hy, r->y1 = cy + hy;
        r->h = 192 + 64 * gen_pick(&rng, 4);
        for (int s = 0; s < 4; s++) r->door[s] = NAN;
        r->sky = gen_pick(&rng, 5) == 0;
        r->pool = gen_pick(&rng, 4) == 0;
        parent[i] = i;
    }
    /* Joints: a random spanning tree of the grid (Kruskal over shuffled edges) and a third
     * of the other edges, for loops. */
    int joint_count = 0;
    for (int i = 0; i < n; i++) {
        if (i % nx + 1 < nx) joints[joint_count++] = (joint){i, i + 1};
        if (i / nx + 1 < ny) joints[joint_count++] = (joint){i, i + nx};
    }
    for (int i = joint_count - 1; i > 0; i--) {
        int j = gen_pick(&rng, i + 1);
        joint t = joints[i];
        joints[i] = joints[j];
        joints[j] = t;
    }
    for (int i = 0; i < joint_count; i++) {
        room *a = &rooms[joints[i].a], *b = &rooms[joints[i].b];
        int ra = find_root(parent, joints[i].a), rb = find_root(parent, joints[i].b);
        bool tree = ra != rb;
        if (!tree && gen_pick(&rng, 3) != 0) continue;
        parent[ra] = rb;
        int s = joints[i].b == joints[i].a + 1 ? 1 : 2;
        double w = 64 + 16 * gen_pick(&rng, 5);
        double lo = s == 1 ? fmax(a->y0, b->y0) : fmax(a->x0, b->x0);
        double hi = s == 1 ? fmin(a->y1, b->y1) : fmin(a->x1, b->x1);
        lo += w / 2 + 32, hi -= w / 2 + 32;
        double c = snap(lo + (hi - lo) * gen_pick(&rng, 1000) / 1000.0, 16);
        a->door[s] = b->door[(s + 2) % 4] = c;
        a->door_w[s] = b->door_w[(s + 2) % 4] = w;
    }

    /* The shell: every room's six sides, the corridors, the pools. */
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "message", "Allium generated test map (realistic)");
    mapgen_keyf(g, "_generator", "allium-genmap --style realistic --brushes %ld --seed %llu",
                brushes, (unsigned long long) seed);
    for (int i = 0; i < n; i++) {
        const room *r = &rooms[i];
        box(g, r->x0 - WALL, r->y0 - WALL, -WALL, r->x1 + WALL, r->y1 + WALL, 0, "floor_stone");
        box(g, r->x0 - WALL, r->y0 - WALL, r->h, r->x1 + WALL, r->y1 + WALL, r->h + WALL,
            r->sky ? "sky1" : "ceiling_plaster");
        for (int s = 0; s < 4; s++) room_wall(g, r, s);
        if (r->pool) {
            static const char *liquids[] = {"*water1", "*water1", "*slime0", "*lava1"};
            box(g, r->x0, r->y0, 0, snap((r->x0 + r->x1) / 2, 16), snap((r->y0 + r->y1) / 2, 16),
                24, liquids[gen_pick(&rng, 4)]);
        }
    }
    /* Corridors, remembered for their lights and doors. */
    typedef struct passage {
        double light[3];
        int lit, doorway, side, a;
    } passage;
    passage *passages = calloc((size_t) 2 * n, sizeof *passages);
    int passage_count = 0;
    if (!passages) {
        free(rooms);
        free(joints);
        free(parent);
        return false;
    }
    for (int i = 0; i < n; i++)
        for (int s = 1; s <= 2; s++) {
            if (isnan(rooms[i].door[s])) continue;
            passage *p = &passages[passage_count++];
            p->side = s, p->a = i;
            corridor(g, &rooms[i], &rooms[s == 1 ? i + 1 : i + nx], s, &p->lit, p->light,
                     &p->doorway);
        }
    mapgen_end_entity(g);

    /* Detail: each room's share of what the budget has left. */
    for (int i = 0; i < n; i++) {
        long left = brushes - mapgen_brush_count(g);
        int budget = left > 0 ? (int) ((left + (n - i) - 1) / (n - i)) : 0;
        room_detail(g, &rng, &rooms[i], budget);
    }
    /* Doors: one in a quarter of the corridors, sliding up. */
    for (int i = 0; i < passage_count; i++) {
        const passage *p = &passages[i];
        if (!p->doorway || gen_pick(&rng, 4) != 0) continue;
        const room *r = &rooms[p->a];
        double c = r->door[p->side], w = r->door_w[p->side];
        double m = p->side == 1 ? p->light[0] : p->light[1];
        mapgen_begin_entity(g, "func_door");
        mapgen_key(g, "angle", "-1");
        mapgen_key(g, "speed", "100");
        if (p->side == 1)
            box(g, m - 4, c - w / 2, 0, m + 4, c + w / 2, DOOR_H, "door_metal");
        else
            box(g, c - w / 2, m - 4, 0, c + w / 2, m + 4, DOOR_H, "door_metal");
        mapgen_end_entity(g);
    }
    /* Lights: one per 256 x 256 of floor, under the beams; one in each longer corridor. */
    for (int i = 0; i < n; i++) {
        const room *r = &rooms[i];
        int lx = (int) ((r->x1 - r->x0) / 256), ly = (int) ((r->y1 - r->y0) / 256);
        for (int a = 0; a < lx; a++)
            for (int b = 0; b < ly; b++)
                mapgen_light(g, r->x0 + (a + 0.5) * (r->x1 - r->x0) / lx,
                             r->y0 + (b + 0.5) * (r->y1 - r->y0) / ly, r->h - 48, "250");
        /* Monsters and items on the floor. */
        static const char *things[] = {"monster_army", "monster_dog", "item_health", "item_shells",
                                       "weapon_supershotgun"};
        for (int k = 1 + gen_pick(&rng, 3); k > 0; k--) {
            double x, y;
            floor_point(&rng, r, 96, &x, &y);
            mapgen_point_entity(g, things[gen_pick(&rng, 5)], x, y, 32);
        }
    }
    for (int i = 0; i < passage_count; i++)
        if (passages[i].lit)
            mapgen_light(g, passages[i].light[0], passages[i].light[1], passages[i].light[2],
                         "200");
    /* The player starts in the middle of room 0, 24 above the floor. */
    mapgen_begin_entity(g, "info_player_start");
    mapgen_keyf(g, "origin", "%g %g %g", snap((rooms[0].x0 + rooms[0].x1) / 2, 8),
                snap((rooms[0].y0 + rooms[0].y1) / 2, 8), 25.0);
    mapgen_end_entity(g);
    free(passages);
    free(rooms);
    free(joints);
    free(parent);
    return true;
}
