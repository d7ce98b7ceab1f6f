/* The .map reader and its conversion to compiler input. */
#include "check.h"
#include "mapfile/map-input.h"
#include "mapfile/map-write.h"
#include "mapfile/material-keys.h"
#include "mapfile/texture.h"
#include "materials/material-defaults.h"
#include "settings/hull-spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static al_map *read_ok(const char *text, al_diag_list *d)
{
    al_map *m = NULL;
    al_status st = al_map_read_buffer(text, strlen(text), &m, d);
    if (st != AL_OK) return NULL;
    return m;
}

static const al_diag *find_diag(const al_diag_list *d, const char *text)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, text)) return &d->items[i];
    return NULL;
}

CHECK_TEST(standard_face, "/mapfile/reads-a-standard-quake-face")
{
    const char *text = "// comment\n{\n\"classname\" \"worldspawn\"\n\"wad\" \"gfx/base.wad\"\n"
                       "{\n( 448 -320 64 ) ( 448 -384 64 ) ( 448 -384 0 ) SLIPBOTSD 0 0 90 "
                       "-1.000000 1.000000\n"
                       "( 1 2 3 ) ( 4 5 6 ) ( 7 8 10 ) {grate 8 16 0 0.5 2 // trailing\n"
                       "( 1 2 3 ) ( 4 5 6 ) ( 7 8 11 ) *04water1 0 0 0 1 1\n"
                       "( 1 2 3 ) ( 4 5 6 ) ( 7 8 12 ) +0slip 0 0 0 1 1 1 2 3\n}\n}\n";
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    CHECK(d.count == 0);
    REQUIRE(m->entity_count == 1 && m->entities[0].brush_count == 1);
    const al_map_entity *e = &m->entities[0];
    CHECK(strcmp(al_map_entity_value(e, "wad"), "gfx/base.wad") == 0);
    const al_map_brush *b = &e->brushes[0];
    REQUIRE(b->face_count == 4);
    CHECK(b->faces[0].points[0][0] == 448 && b->faces[0].points[2][2] == 0);
    CHECK(strcmp(b->faces[0].material, "SLIPBOTSD") == 0 && !b->faces[0].valve);
    CHECK(b->faces[0].rotation == 90 && b->faces[0].scale[0] == -1);
    CHECK(strcmp(b->faces[1].material, "{grate") == 0);
    CHECK(b->faces[1].offset[0] == 8 && b->faces[1].offset[1] == 16 && b->faces[1].scale[1] == 2);
    CHECK(strcmp(b->faces[2].material, "*04water1") == 0);
    CHECK(b->faces[3].has_flags && b->faces[3].flags[2] == 3);
    CHECK(b->faces[1].line == 7 && b->faces[1].column == 1);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(valve_face, "/mapfile/reads-a-valve-220-face")
{
    const char *text = "// Game: Quake\n// Format: Valve\n{\r\n\"classname\" \"worldspawn\"\r\n"
                       "\"mapversion\" \"220\"\r\n{\r\n"
                       "( 704 1824 576 ) ( 704 1792 576 ) ( 704 1792 448 ) grk_brk16 "
                       "[ -2.22045e-16 -1 0 112 ] [ 0 0 -1 0 ] 0 1 1\r\n}\r\n}\r\n"
                       "{\n\"classname\" \"light\"\n\"origin\" \"1 2 3\"\n\"key \\\"q\\\"\" \"v\"\n}\n";
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    REQUIRE(m->entity_count == 2);
    const al_map_face *f = &m->entities[0].brushes[0].faces[0];
    CHECK(f->valve);
    CHECK(f->u_axis[1] == -1 && f->u_offset == 112 && f->v_axis[2] == -1);
    CHECK(fabs(f->u_axis[0] + 2.22045e-16) < 1e-30);
    CHECK(strcmp(al_map_entity_value(&m->entities[1], "key \"q\""), "v") == 0);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(points_as_written, "/mapfile/plane-points-are-written-back-as-they-were-written")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n{\n"
                       "( 64.000000 -0 0 ) ( 64.0 1e1 0 ) ( 64 0 16 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 16 ) ( 0 10 0 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 64 0 0 ) ( 0 0 16 ) a 0 0 0 1 1\n"
                       "( 0 10 0 ) ( 0 10 16 ) ( 64 10 0 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 10 0 ) ( 64 0 0 ) a 0 0 0 1 1\n"
                       "( 0 0 16 ) ( 64 0 16 ) ( 0 10 16 ) a 0 0 0 1 1\n}\n}\n";
    al_map *m = read_ok(text, NULL);
    REQUIRE(m);
    al_map_face *f = &m->entities[0].brushes[0].faces[0];
    /* Only the face with numbers not in shortest form keeps its text. */
    REQUIRE(f->points_text);
    CHECK(strcmp(f->points_text, "( 64.000000 -0 0 ) ( 64.0 1e1 0 ) ( 64 0 16 )") == 0);
    CHECK(!m->entities[0].brushes[0].faces[1].points_text);
    char *out;
    size_t len;
    REQUIRE(al_map_write(m, false, &out, &len));
    CHECK(strstr(out, "( 64.000000 -0 0 ) ( 64.0 1e1 0 ) ( 64 0 16 ) a"));
    free(out);
    /* A moved point is written anew. */
    f->points[2][2] = 32;
    REQUIRE(al_map_write(m, false, &out, &len));
    CHECK(strstr(out, "( 64 0 0 ) ( 64 10 0 ) ( 64 0 32 ) a"));
    free(out);
    al_map_destroy(m);
}

/* Key values as Quake writes them: its parser knows no escapes, so the "\n" of id's
 * messages (e4m3) is two characters and is written back as it was; a quote, and a backslash
 * the reader would take for an escape, are escaped, and every value reads back the same. */
CHECK_TEST(values_as_written, "/mapfile/key-values-are-written-back-as-they-were-written")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n"
                       "\"message\" \"You must shoot the window \\n to open this door.\"\n"
                       "\"path\" \"C:\\quake\\id1\"\n}\n";
    al_map *m = read_ok(text, NULL);
    REQUIRE(m);
    REQUIRE(m->entities[0].property_count == 3);
    CHECK(strcmp(m->entities[0].properties[1].value,
                 "You must shoot the window \\n to open this door.") == 0);
    char *out;
    size_t len;
    REQUIRE(al_map_write(m, false, &out, &len));
    CHECK_MSG(strstr(out, "\"message\" \"You must shoot the window \\n to open this door.\"") &&
                  strstr(out, "\"path\" \"C:\\quake\\id1\""),
              "written: %s", out);
    free(out);
    /* Values the reader would misread if written bare: each reads back as itself. */
    const char *hard[] = {"a\\\\b", "ends in \\", "quote \" inside", "\\\"", "\\\\\\", ""};
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
        free(m->entities[0].properties[1].value);
        m->entities[0].properties[1].value = strdup(hard[i]);
        REQUIRE(al_map_write(m, i % 2 == 1, &out, &len));
        al_map *back = read_ok(out, NULL);
        const char *value = NULL;
        for (int k = 0; back && k < back->entities[0].property_count; k++)
            if (strcmp(back->entities[0].properties[k].key, "message") == 0)
                value = back->entities[0].properties[k].value;
        CHECK_MSG(value && strcmp(value, hard[i]) == 0, "value [%s] written as %s", hard[i], out);
        al_map_destroy(back);
        free(out);
    }
    al_map_destroy(m);
}

/* A face through P with random orientation, and a random point on its plane. */
static void random_face(unsigned *seed, al_map_face *f, double on_plane[3])
{
#define RND() ((*seed = *seed * 1103515245u + 12345u) >> 8 & 0xffff) / 65536.0
    memset(f, 0, sizeof *f);
    double o[3], a[3], b[3];
    for (int k = 0; k < 3; k++) {
        o[k] = RND() * 2000 - 1000;
        a[k] = RND() * 2 - 1;
        b[k] = RND() * 2 - 1;
    }
    /* Axial faces half of the time: most faces of real maps are. */
    if (RND() < 0.5) {
        int axis = (int) (RND() * 3);
        a[axis] = b[axis] = 0;
    }
    for (int k = 0; k < 3; k++) {
        f->points[0][k] = o[k] + a[k] * 64;
        f->points[1][k] = o[k];
        f->points[2][k] = o[k] + b[k] * 64;
    }
    double s = RND() * 3 - 1.5, t = RND() * 3 - 1.5;
    for (int k = 0; k < 3; k++) on_plane[k] = o[k] + s * a[k] * 500 + t * b[k] * 500;
    static const double rotations[] = {0, 90, 180, 270, -90, 45, 30, 12.5, 400};
    f->rotation = rotations[(int) (RND() * 9)];
    static const double scales[] = {1, -1, 0.5, 2, -0.25, 1.5};
    f->scale[0] = scales[(int) (RND() * 6)];
    f->scale[1] = scales[(int) (RND() * 6)];
    f->offset[0] = floor(RND() * 256 - 128);
    f->offset[1] = floor(RND() * 256 - 128);
#undef RND
}

CHECK_TEST(texture_conversion, "/mapfile/texture-projection-survives-dialect-conversion")
{
    /* Oracle: the texture coordinates of points on the face, by the other dialect's
     * formula, equal the original's. */
    unsigned seed = 7;
    int checked = 0, worst_face = -1;
    double worst = 0;
    for (int i = 0; i < 2000; i++) {
        al_map_face st, va, back;
        double p[3];
        random_face(&seed, &st, p);
        va = st;
        va.valve = true;
        al_texture_to_valve(&st, va.u_axis, &va.u_offset, va.v_axis, &va.v_offset);
        back = va;
        back.valve = false;
        CHECK_MSG(al_texture_to_standard(&va, back.offset, &back.rotation, back.scale),
                  "face %d: a standard face's Valve axes should convert back exactly", i);
        double a[2], b[2], c[2];
        for (int q = 0; q < 4; q++) {
            const double *x = q < 3 ? st.points[q] : p;
            al_texture_coords(&st, x, a);
            al_texture_coords(&va, x, b);
            al_texture_coords(&back, x, c);
            for (int k = 0; k < 2; k++) {
                double d = fmax(fabs(a[k] - b[k]), fabs(a[k] - c[k]));
                if (d > worst) worst = d, worst_face = i;
            }
            checked++;
        }
    }
    check_note("%d points: worst difference %.3g texels (face %d)", checked, worst, worst_face);
    CHECK(worst < 1e-6);
}

/* Applies the affine map M to P. */
static void apply_map(const double m[3][4], const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
}

/* A random map: a turn about a random axis (any angle, or a quarter turn about Z), a scale
 * (sometimes uneven, sometimes a mirror) and a move. QUARTER: only moves, quarter turns
 * about Z and mirrors, which the standard format keeps exactly. */
static void random_map(unsigned *seed, bool quarter, double m[3][4])
{
#define RND() ((*seed = *seed * 1103515245u + 12345u) >> 8 & 0xffff) / 65536.0
    double r[3][3];
    if (quarter) {
        int q = (int) (RND() * 4);
        static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        double c = cs[q][0], sn = cs[q][1];
        double mirror = RND() < 0.3 ? -1 : 1;
        const double rq[3][3] = {{c * mirror, -sn, 0}, {sn * mirror, c, 0}, {0, 0, 1}};
        memcpy(r, rq, sizeof r);
    } else {
        double axis[3] = {RND() * 2 - 1, RND() * 2 - 1, RND() * 2 - 1};
        double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-9;
        for (int k = 0; k < 3; k++) axis[k] /= len;
        double ang = RND() * 2 * M_PI, c = cos(ang), sn = sin(ang), t = 1 - c;
        double x = axis[0], y = axis[1], z = axis[2];
        const double rr[3][3] = {{t * x * x + c, t * x * y - sn * z, t * x * z + sn * y},
                                 {t * x * y + sn * z, t * y * y + c, t * y * z - sn * x},
                                 {t * x * z - sn * y, t * y * z + sn * x, t * z * z + c}};
        memcpy(r, rr, sizeof r);
        double scale[3] = {1, 1, 1};
        if (RND() < 0.5) {
            double u = 0.5 + RND() * 1.5;
            scale[0] = scale[1] = scale[2] = u;
        } else if (RND() < 0.5) {
            for (int k = 0; k < 3; k++) scale[k] = 0.5 + RND() * 1.5;
        }
        if (RND() < 0.2) scale[0] = -scale[0];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) r[i][k] *= scale[k];
    }
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) m[i][k] = r[i][k];
        m[i][3] = floor(RND() * 512 - 256);
    }
#undef RND
}

CHECK_TEST(texture_lock, "/mapfile/texture-lock-keeps-every-point-of-a-face-on-its-texel")
{
    /* Oracle: a point x of the face before the map and its image M x after it have the
     * same texture coordinates (three points of the face and one far along its plane). */
    unsigned seed = 11;
    double worst[2][2] = {{0, 0}, {0, 0}}; /* [valve][quarter] */
    int inexact = 0, standard_free = 0;
    double approximate = 0;
    for (int i = 0; i < 4000; i++) {
        al_map_face f, g;
        double p[3], m[3][4], moved[3][3];
        random_face(&seed, &f, p);
        bool valve = i % 2 == 1, quarter = i % 4 >= 2;
        if (valve) {
            al_map_face v = f;
            al_texture_to_valve(&f, v.u_axis, &v.u_offset, v.v_axis, &v.v_offset);
            v.valve = true;
            f = v;
        }
        random_map(&seed, quarter, m);
        /* The face's points as the document moves them (a mirror swaps two). */
        double q[3][3];
        for (int k = 0; k < 3; k++) apply_map(m, f.points[k], q[k]);
        bool mirror = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                          m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                          m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]) <
                      0;
        memcpy(moved[0], mirror ? q[2] : q[0], sizeof moved[0]);
        memcpy(moved[1], q[1], sizeof moved[1]);
        memcpy(moved[2], mirror ? q[0] : q[2], sizeof moved[2]);
        g = f;
        bool exact = al_texture_lock(&g, m, (const double (*)[3]) moved);
        if (!valve && !quarter) {
            standard_free++;
            inexact += !exact;
        }
        double d = 0;
        for (int k = 0; k < (exact ? 4 : 3); k++) {
            const double *x = k < 3 ? f.points[k] : p;
            double y[3], a[2], b[2];
            apply_map(m, x, y);
            al_texture_coords(&f, x, a);
            al_texture_coords(&g, y, b);
            d = fmax(d, fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1])));
        }
        if (!exact) {
            /* The standard format's nearest: how near, for the note. */
            approximate = fmax(approximate, d);
            continue;
        }
        double *w = &worst[valve][quarter];
        if (d > *w) *w = d;
        /* Points up to 3000 units out, at scales down to 1/4: a millionth of a texel is
         * rounding. */
        CHECK_MSG(d < 1e-5, "face %d (%s, %s): texture moved by %.3g texels", i,
                  valve ? "Valve" : "standard", quarter ? "quarter turn" : "any map", d);
        if (d >= 1e-5) break;
    }
    check_note("worst shift in texels: Valve %.2g (any map) / %.2g (quarter turns); standard "
               "%.2g (quarter turns) / %.2g (any map, the %d of %d it calls exact; the rest "
               "are off by up to %.3g texels 64 units from the corner they keep)",
               worst[1][0], worst[1][1], worst[0][1], worst[0][0], standard_free - inexact,
               standard_free, approximate);
}

CHECK_TEST(texture_lock_exact,
           "/mapfile/texture-lock-is-exact-in-valve-and-for-quarter-turns-in-standard")
{
    unsigned seed = 23;
    for (int i = 0; i < 2000; i++) {
        al_map_face f;
        double p[3], m[3][4];
        random_face(&seed, &f, p);
        bool valve = i % 2 == 1;
        if (valve) {
            al_map_face v = f;
            al_texture_to_valve(&f, v.u_axis, &v.u_offset, v.v_axis, &v.v_offset);
            v.valve = true;
            f = v;
        }
        random_map(&seed, !valve, m);
        double moved[3][3];
        for (int k = 0; k < 3; k++) apply_map(m, f.points[k], moved[k]);
        if (!al_texture_lock(&f, m, (const double (*)[3]) moved)) {
            CHECK_MSG(false, "face %d (%s): reported inexact", i, valve ? "Valve" : "standard");
            break;
        }
    }
}

CHECK_TEST(texture_lock_floor, "/mapfile/texture-lock-turns-a-floor-about-z-exactly-in-standard")
{
    /* Any turn about Z leaves a floor's texture axes in its axial plane: a rotation of the
     * standard format holds it. */
    al_map_face f;
    memset(&f, 0, sizeof f);
    const double pts[3][3] = {{0, 64, 16}, {0, 0, 16}, {64, 0, 16}};
    memcpy(f.points, pts, sizeof pts);
    f.scale[0] = f.scale[1] = 1;
    f.offset[0] = 8;
    double c = cos(30 * M_PI / 180), sn = sin(30 * M_PI / 180);
    const double m[3][4] = {{c, -sn, 0, 100}, {sn, c, 0, -40}, {0, 0, 1, 0}};
    al_map_face g = f;
    double moved[3][3];
    for (int k = 0; k < 3; k++) apply_map(m, f.points[k], moved[k]);
    CHECK(al_texture_lock(&g, m, (const double (*)[3]) moved));
    CHECK_MSG(fabs(fabs(g.rotation) - 30) < 1e-9 || fabs(fabs(g.rotation) - 330) < 1e-9,
              "rotation %g", g.rotation);
    const double x[3] = {37, -12, 16};
    double y[3], a[2], b[2];
    apply_map(m, x, y);
    al_texture_coords(&f, x, a);
    al_texture_coords(&g, y, b);
    CHECK_MSG(fabs(a[0] - b[0]) < 1e-9 && fabs(a[1] - b[1]) < 1e-9, "(%g %g) against (%g %g)", a[0],
              a[1], b[0], b[1]);
}

CHECK_TEST(texture_shear, "/mapfile/sheared-valve-axes-are-reported-inexact")
{
    al_map_face f;
    memset(&f, 0, sizeof f);
    const double pts[3][3] = {{0, 64, 0}, {0, 0, 0}, {64, 0, 0}}; /* a floor */
    memcpy(f.points, pts, sizeof pts);
    f.valve = true;
    f.scale[0] = f.scale[1] = 1;
    f.u_axis[0] = 1;
    f.v_axis[0] = 0.3; /* not perpendicular to U */
    f.v_axis[1] = -1;
    double off[2], rot, sc[2];
    CHECK(!al_texture_to_standard(&f, off, &rot, sc));
    f.v_axis[0] = 0;
    CHECK(al_texture_to_standard(&f, off, &rot, sc));
    CHECK(rot == 0 && sc[0] == 1 && sc[1] == 1);
}

CHECK_TEST(bad_brush_skipped, "/mapfile/a-bad-brush-is-reported-with-its-line-and-skipped")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n"
                       "{\n( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) a 0 0 0 1 1\n}\n"
                       "{\n( 0 0 0 ) ( 1 0 nan ) ( 0 1 0 ) a 0 0 0 1 1\n}\n"
                       "{\n( 0 0 0 ) ( 1 0 ) ( 0 1 0 ) a 0 0 0 1 1\n}\n"
                       "{\npatchDef2\n{\n}\n}\n"
                       "{\n( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) b 0 0 0 1 1\n}\n}\n";
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    CHECK(m->brushes_skipped == 3);
    REQUIRE(m->entities[0].brush_count == 2);
    CHECK(m->entities[0].brushes[1].index == 4); /* file order numbering kept */
    const al_diag *nan_diag = find_diag(&d, "not a finite number");
    REQUIRE(nan_diag);
    CHECK(nan_diag->line == 7 && nan_diag->column == 17 && nan_diag->brush == 1);
    const al_diag *paren = find_diag(&d, "expected z coordinate");
    REQUIRE(paren);
    CHECK(paren->line == 10 && paren->brush == 2 && strstr(paren->message, "skipped"));
    CHECK(find_diag(&d, "patchDef2") != NULL);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(syntax_errors, "/mapfile/a-syntax-error-stops-the-read-with-line-and-column")
{
    struct {
        const char *text;
        const char *message;
        int line, column;
    } cases[] = {
        {"{\n\"classname\" \"worldspawn\"\n", "not closed", 1, 1},
        {"hello", "expected '{' to start an entity", 1, 1},
        {"{\n\"classname\" \"worldspawn\"\n}\n}", "expected '{' to start an entity", 4, 1},
        {"{\n\"classname\n\"x\" \"y\"\n}", "not closed before the end of the line", 2, 1},
        {"{\n\"classname\" \"worldspawn\"\nfoo\n}", "expected a quoted property key", 3, 1},
        {"{\n{\n( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) a 0 0 0 1 1\n", "brush that starts here", 2, 1},
        {"{\n\"key\"\n}", "expected the property's value", 3, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        al_diag_list d = {0};
        al_map *m = (al_map *) 1;
        al_status st = al_map_read_buffer(cases[i].text, strlen(cases[i].text), &m, &d);
        CHECK_MSG(st == AL_ERR_SYNTAX, "case %zu: status %s", i, al_status_name(st));
        CHECK(m == NULL);
        const al_diag *e = find_diag(&d, cases[i].message);
        CHECK_MSG(e != NULL, "case %zu: no diagnostic containing \"%s\"", i, cases[i].message);
        if (e)
            CHECK_MSG(e->line == cases[i].line && e->column == cases[i].column,
                      "case %zu: at %d:%d, expected %d:%d", i, e->line, e->column,
                      cases[i].line, cases[i].column);
        al_diag_list_clear(&d);
    }
    al_map *m;
    al_diag_list d = {0};
    CHECK(al_map_read_file("/nonexistent/dir/x.map", &m, &d) == AL_ERR_IO);
    CHECK(d.count == 1 && strstr(d.items[0].message, "cannot open"));
    al_diag_list_clear(&d);
    /* A folder is named as one, not "an error while reading". */
    CHECK(al_map_read_file("/tmp", &m, &d) == AL_ERR_IO && !m);
    CHECK_MSG(d.count == 1 && strstr(d.items[0].message, "/tmp: it is a folder, not a map file"),
              "%s", d.count ? d.items[0].message : "no message");
    al_diag_list_clear(&d);
}

CHECK_TEST(empty_file, "/mapfile/empty-and-comment-only-files-are-empty-maps-with-a-warning")
{
    al_diag_list d = {0};
    al_map *m = read_ok("", &d);
    REQUIRE(m);
    CHECK(m->entity_count == 0);
    CHECK(d.count == 1 && d.items[0].severity == AL_SEVERITY_WARNING &&
          find_diag(&d, "the file is empty (0 bytes): the map has no entities"));
    al_map_destroy(m);
    al_diag_list_clear(&d);
    m = read_ok("// only a comment", &d);
    REQUIRE(m);
    CHECK(m->entity_count == 0);
    CHECK(d.count == 1 && find_diag(&d, "holds no entity (17 bytes of spaces and comments)"));
    al_map_destroy(m);
    al_diag_list_clear(&d);
    /* A map with an entity says nothing of the kind. */
    m = read_ok("{\n\"classname\" \"worldspawn\"\n}\n", &d);
    REQUIRE(m);
    CHECK(m->entity_count == 1 && d.count == 0);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(materials, "/materials/quake-names-get-default-flags")
{
    CHECK(al_material_default_flags("sky4") == AL_MATERIAL_SKY);
    CHECK(al_material_default_flags("SKY1") == AL_MATERIAL_SKY);
    CHECK(al_material_default_flags("*water1") == AL_MATERIAL_LIQUID);
    CHECK(al_material_default_flags("*lava1") == (AL_MATERIAL_LIQUID | AL_MATERIAL_LAVA));
    CHECK(al_material_default_flags("*SLIME0") == (AL_MATERIAL_LIQUID | AL_MATERIAL_SLIME));
    CHECK(al_material_default_flags("*teleport") == AL_MATERIAL_LIQUID);
    CHECK(al_material_default_flags("+0water_f1") == 0); /* a waterfall wall is solid */
    /* Only a trigger entity makes a brush non-solid; the texture alone gives no contents. */
    CHECK(al_material_default_flags("TRIGGER") == AL_MATERIAL_TRIGGER);
    CHECK(al_material_default_flags("clip") == AL_MATERIAL_CLIP);
    CHECK(al_material_default_flags("skip") == AL_MATERIAL_NODRAW);
    CHECK(al_material_default_flags("hint") == AL_MATERIAL_HINT);
    CHECK(al_material_default_flags("METAL4_4") == 0);
    float a[3], b[3];
    al_material_default_colour("METAL4_4", a);
    al_material_default_colour("metal4_4", b);
    CHECK(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    for (int k = 0; k < 3; k++) CHECK(a[k] >= 0 && a[k] <= 1);
}

CHECK_TEST(input_conversion, "/mapfile/conversion-collects-materials-and-settings")
{
    const char *text =
        "{\n\"classname\" \"worldspawn\"\n"
        "\"allium_hulls\" \"point 0 0 0 0 0 0; small -8 -8 -8 8 8 8\"\n"
        "\"allium_block_size\" \"512\"\n"
        "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n"
        "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) stone 0 0 0 1 1\n"
        "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) *water 0 0 0 1 1\n}\n}\n"
        "{\n\"classname\" \"func_door\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n}\n}\n";
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    al_map_input in;
    REQUIRE(al_map_input_build(m, &in, &d) == AL_OK);
    CHECK(d.count == 0);
    CHECK(in.input.entity_count == 2 && in.input.brush_count == 2 && in.input.face_count == 4);
    CHECK(in.input.material_count == 2);
    CHECK(in.input.faces[2].material == 1 && in.input.faces[3].material == 0);
    CHECK(in.input.materials[1].flags == AL_MATERIAL_LIQUID);
    CHECK(strcmp(in.input.entities[1].classname, "func_door") == 0);
    CHECK(in.input.brushes[1].entity == 1 && in.input.brushes[1].first_face == 3);
    CHECK(in.input.hull_count == 2 && strcmp(in.input.hulls[1].name, "small") == 0);
    CHECK(in.input.hulls[1].mins[0] == -8 && in.input.hulls[1].maxs[2] == 8);
    CHECK(in.input.block_size == 512);
    al_map_input_free(&in);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(material_keys, "/mapfile/material-keys-give-materials-their-light-through-a-round-trip")
{
    const char *text =
        "{\n\"classname\" \"worldspawn\"\n"
        "\"_allium_material_*lava1\" \"colour 1 0.5 0.25 reflectance 0.3 emission 200 80 20\"\n"
        "\"_allium_material_stone\" \"emission 5 6 7\"\n"
        "\"_allium_material_metal\" \"colour red\"\n"
        "\"_allium_material_unused\" \"emission 1 1 1\"\n"
        "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n"
        "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) metal 0 0 0 1 1\n"
        "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) *lava1 0 0 0 1 1\n}\n}\n";
    for (int pass = 0; pass < 2; pass++) {
        /* The second pass reads what the first wrote back (where the world's "{" is on
         * line 4, after the writer's comments). */
        static char *written;
        al_diag_list d = {0};
        al_map *m = read_ok(pass ? written : text, &d);
        REQUIRE(m);
        al_map_input in;
        REQUIRE(al_map_input_build(m, &in, &d) == AL_OK);
        REQUIRE(in.input.material_count == 3);
        const al_diag *bad = find_diag(&d, "_allium_material_metal");
        CHECK_MSG(bad && bad->line == (pass ? 4 : 1) &&
                      strstr(bad->message, "three numbers from 0 to 1"),
                  "line %d: %s", bad ? bad->line : -1, bad ? bad->message : "no warning");
        CHECK(d.count == 1);
        float rgb[3];
        for (int i = 0; i < 3; i++) {
            const al_material_desc *md = &in.input.materials[i];
            al_material_default_colour(md->name, rgb);
            if (strcmp(md->name, "*lava1") == 0) {
                CHECK(md->colour[0] == 1 && md->colour[1] == 0.5f && md->colour[2] == 0.25f);
                CHECK(md->reflectance == 0.3f);
                CHECK(md->emission[0] == 200 && md->emission[1] == 80 && md->emission[2] == 20);
                CHECK(md->flags == al_material_default_flags("*lava1"));
            } else if (strcmp(md->name, "stone") == 0) {
                CHECK(memcmp(md->colour, rgb, sizeof rgb) == 0 && md->reflectance == 0);
                CHECK(md->emission[0] == 5 && md->emission[1] == 6 && md->emission[2] == 7);
            } else {
                CHECK(strcmp(md->name, "metal") == 0);
                CHECK(memcmp(md->colour, rgb, sizeof rgb) == 0 && md->emission[0] == 0);
            }
        }
        al_map_input_free(&in);
        if (pass == 0) {
            size_t len;
            REQUIRE(al_map_write(m, false, &written, &len));
        } else {
            free(written);
        }
        al_map_destroy(m);
        al_diag_list_clear(&d);
    }

    /* What the writer formats reads back as it was; bad values name what is wrong. */
    al_material_light ml = {.has_colour = true,
                            .colour = {0.1, 1.0 / 3, 0},
                            .reflectance = 0.95,
                            .emission = {1e-3, 12345.5, 0}},
                      back;
    char value[256], why[120];
    al_material_key_format(&ml, value, sizeof value);
    REQUIRE_MSG(al_material_key_parse(value, &back, why, sizeof why), "%s: %s", value, why);
    CHECK(back.has_colour && back.reflectance == ml.reflectance);
    for (int k = 0; k < 3; k++)
        CHECK(back.colour[k] == ml.colour[k] && back.emission[k] == ml.emission[k]);
    CHECK(strcmp(al_material_key_name("_allium_material_+0slip"), "+0slip") == 0);
    CHECK(!al_material_key_name("_allium_material_") && !al_material_key_name("_color"));
    const char *bad[][2] = {{"emission 1 2", "three numbers of at least 0"},
                            {"reflectance 1.5", "from 0 to 1"},
                            {"emission 1 1 1 colour 1 1 1", "nothing more"},
                            {"shine 3", "colour, reflectance or emission"},
                            {"colour 0 0 nan", "three numbers from 0 to 1"}};
    for (int i = 0; i < 5; i++) {
        CHECK_MSG(!al_material_key_parse(bad[i][0], &back, why, sizeof why) &&
                      strstr(why, bad[i][1]),
                  "\"%s\": %s", bad[i][0], why);
    }
}

CHECK_TEST(bad_settings, "/mapfile/bad-settings-are-reported-and-defaults-used")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n\"allium_hulls\" \"stand -16 -16\"\n"
                       "\"allium_block_size\" \"huge\"\n}\n";
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    al_map_input in;
    REQUIRE(al_map_input_build(m, &in, &d) == AL_OK);
    CHECK(in.input.hull_count == 0 && in.input.block_size == 0);
    CHECK(find_diag(&d, "allium_hulls") && find_diag(&d, "allium_block_size"));
    al_map_input_free(&in);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}

CHECK_TEST(hull_specs, "/settings/hull-specs-parse-and-explain-errors")
{
    al_hull_desc h;
    char err[200];
    CHECK(al_hull_spec_parse("stand=-16,-16,-24,16,16,32", &h, err, sizeof err));
    CHECK(strcmp(h.name, "stand") == 0 && h.mins[2] == -24 && h.maxs[2] == 32);
    CHECK(al_hull_spec_parse("  big -32 -32 -24 32 32 64 ", &h, err, sizeof err));
    CHECK(!al_hull_spec_parse("x=1,2,3", &h, err, sizeof err) && strstr(err, "number 4"));
    CHECK(!al_hull_spec_parse("x=1,0,0,0,0,0", &h, err, sizeof err) && strstr(err, "greater"));
    CHECK(!al_hull_spec_parse("=1,2,3,4,5,6", &h, err, sizeof err));
    CHECK(!al_hull_spec_parse("x=0,0,0,1,1,1 junk", &h, err, sizeof err));
    CHECK(!al_hull_spec_parse("x=nan,0,0,1,1,1", &h, err, sizeof err));
    al_hull_desc list[4];
    CHECK(al_hull_spec_parse_list("a 0 0 0 0 0 0;b -1 -1 -1 1 1 1;", list, 4, err, sizeof err) == 2);
    CHECK(al_hull_spec_parse_list(" ; ", list, 4, err, sizeof err) == -1);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}

CHECK_TEST(texture_axes_closed_form, "/mapfile/texture-axes-match-the-closed-form-in-both-formats")
{
    /* Oracle, written from the formats' definitions rather than the code: a standard face
     * is projected on the axial plane its normal is nearest to, with coordinates (a, b) the
     * two other axes in x, y, z order; the texture's s axis is (cos r, sin r) and its t axis
     * (sin r, -cos r) there (unrotated: s along a, t down b, so walls are upright), so
     *   u = (a cos r + b sin r) / scale_x + offset_x,  v = (a sin r - b cos r) / scale_y +
     * offset_y. A Valve face's u = p . U / scale_x + u_offset, v = p . V / scale_y + v_offset. The
     * axes reach the compiler's input (al_face_desc.texture_axes) through the converter. */
    static const char *planes[3] = {
        "( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 )", /* normal along z: (a, b) = (x, y) */
        "( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 )", /* along x: (y, z) */
        "( 0 64 0 ) ( 0 64 64 ) ( 64 64 0 )", /* along y: (x, z) */
    };
    static const int drop[3] = {2, 0, 1};
    static const double rotations[] = {0, 30, 90, 135, -45, 200, 270};
    static const double scales[][2] = {{1, 1}, {0.5, 2}, {-1, 0.25}, {2, -0.5}};
    char text[16384];
    int len = snprintf(text, sizeof text, "{\n\"classname\" \"worldspawn\"\n{\n");
    int n = 0;
    for (int p = 0; p < 3; p++)
        for (size_t r = 0; r < sizeof rotations / sizeof rotations[0]; r++)
            for (int s = 0; s < 4; s++, n++)
                len += snprintf(text + len, sizeof text - (size_t) len, "%s tex %d %d %g %g %g\n",
                                planes[p], 3 * n - 40, 17 - n, rotations[r], scales[s][0],
                                scales[s][1]);
    /* Valve faces: unit and sheared axes, any plane. */
    len += snprintf(text + len, sizeof text - (size_t) len,
                    "%s tex [ 0.6 0.8 0 12 ] [ 0 0 -1 -5 ] 0 0.5 2\n"
                    "%s tex [ 1 0 0.5 -3 ] [ 0.3 -1 0 7.5 ] 10 -1 1\n}\n}\n",
                    planes[0], planes[1]);
    al_diag_list d = {0};
    al_map *m = read_ok(text, &d);
    REQUIRE(m);
    al_map_input in;
    REQUIRE(al_map_input_build(m, &in, &d) == AL_OK);
    REQUIRE(in.input.face_count == n + 2);
    unsigned seed = 3;
    double worst = 0;
    int checked = 0;
    for (int f = 0; f < in.input.face_count; f++) {
        const al_map_face *mf = &m->entities[0].brushes[0].faces[f];
        const double (*ax)[4] = (const double (*)[4]) in.input.faces[f].texture_axes;
        for (int q = 0; q < 8; q++) {
            double p[3];
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                p[k] = (double) (seed >> 8 & 0xffff) / 64.0 - 512.0;
            }
            double want[2];
            if (f < n) {
                int pl = f / (int) (sizeof rotations / sizeof rotations[0] * 4);
                int ia = drop[pl] == 0 ? 1 : 0, ib = drop[pl] == 2 ? 1 : 2;
                double rr = mf->rotation * M_PI / 180, c = cos(rr), s = sin(rr);
                want[0] = (p[ia] * c + p[ib] * s) / mf->scale[0] + mf->offset[0];
                want[1] = (p[ia] * s - p[ib] * c) / mf->scale[1] + mf->offset[1];
            } else {
                want[0] = (p[0] * mf->u_axis[0] + p[1] * mf->u_axis[1] + p[2] * mf->u_axis[2]) /
                              mf->scale[0] +
                          mf->u_offset;
                want[1] = (p[0] * mf->v_axis[0] + p[1] * mf->v_axis[1] + p[2] * mf->v_axis[2]) /
                              mf->scale[1] +
                          mf->v_offset;
            }
            for (int i = 0; i < 2; i++) {
                double got = p[0] * ax[i][0] + p[1] * ax[i][1] + p[2] * ax[i][2] + ax[i][3];
                worst = fmax(worst, fabs(got - want[i]));
            }
            checked++;
        }
    }
    check_note("%d points on %d faces: worst difference %.3g texels", checked, n + 2, worst);
    CHECK(worst < 1e-9);
    al_map_input_free(&in);
    al_map_destroy(m);
    al_diag_list_clear(&d);
}
