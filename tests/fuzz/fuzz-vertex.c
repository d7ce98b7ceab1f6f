/* libFuzzer target: vertex moves and splits (data/vertex) over any brush and any move.
 *
 * The first byte chooses how the rest is read: coordinates as small whole numbers times 8
 * (brushes and moves on the grid, where real edits live) or as doubles as they lie in the
 * input (NaN, infinity, denormals and huge values included). Then the faces (4 to 19, three
 * points each), the corners to move (by index among the brush's corners, or points as
 * read) and the offset; with bit 2 of the first byte, a split instead, at the middle of an
 * edge or the centre of a face chosen by the first corner's index (or the first point as
 * read). A refusal must come with a reason; a brush that is built must be
 * taken by the compiler's brush builder. See tests/meson.build for running it. */
#include "vertex/vertex.h"

#include "al-brush.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take_byte(const uint8_t **data, size_t *size)
{
    if (*size == 0) return 0;
    int v = **data;
    (*data)++;
    (*size)--;
    return v;
}

/* The next coordinate: a signed byte times 8, or a double as it lies in the input. */
static double take_coord(const uint8_t **data, size_t *size, int raw)
{
    if (!raw) return 8.0 * (int8_t) take_byte(data, size);
    double v = 0;
    if (*size >= sizeof v) {
        memcpy(&v, *data, sizeof v);
        *data += sizeof v;
        *size -= sizeof v;
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int mode = take_byte(&data, &size), raw = mode & 1;
    int count = 4 + take_byte(&data, &size) % 16;
    al_doc_face faces[20];
    memset(faces, 0, sizeof faces);
    for (int f = 0; f < count; f++) {
        for (int i = 0; i < 9; i++) faces[f].points[i / 3][i % 3] = take_coord(&data, &size, raw);
        faces[f].material = f % 2 ? "wall" : "floor";
    }
    al_vertex_geometry *g = malloc(sizeof *g);
    al_doc_face *out = malloc(AL_BRUSH_MAX_FACES * sizeof *out);
    if (!g || !out) abort();
    char why[256] = "";
    bool built = al_vertex_geometry_build(faces, count, g, why, sizeof why);
    if (!built && why[0] == '\0') abort(); /* a refusal says why */
    double from[4][3];
    int from_count = 1 + take_byte(&data, &size) % 4;
    for (int k = 0; k < from_count; k++) {
        int pick = take_byte(&data, &size);
        if (built && !(mode & 2)) {
            memcpy(from[k], g->vertices[pick % g->vertex_count], sizeof from[k]);
        } else {
            for (int a = 0; a < 3; a++) from[k][a] = take_coord(&data, &size, raw);
        }
    }
    double delta[3];
    for (int a = 0; a < 3; a++) delta[a] = take_coord(&data, &size, raw);
    int n = 0;
    why[0] = '\0';
    al_status st;
    if (mode & 4) {
        double at[3] = {0, 0, 0};
        int pick = take_byte(&data, &size);
        if (built && !(mode & 2) && (pick & 1)) {
            const int *e = g->edges[pick % g->edge_count];
            for (int a = 0; a < 3; a++) at[a] = 0.5 * (g->vertices[e[0]][a] + g->vertices[e[1]][a]);
        } else if (built && !(mode & 2)) {
            int f = pick % g->face_count, k = g->face_first[f + 1] - g->face_first[f];
            for (int i = g->face_first[f]; i < g->face_first[f + 1]; i++)
                for (int a = 0; a < 3; a++) at[a] += g->vertices[g->face_points[i]][a] / k;
        } else {
            memcpy(at, from[0], sizeof at);
        }
        st = al_vertex_split(faces, count, at, delta, out, &n, why, sizeof why);
    } else {
        st = al_vertex_move(faces, count, (const double(*)[3]) from, from_count, delta, out, &n,
                            why, sizeof why);
    }
    if (st != AL_OK && why[0] == '\0') abort();
    if (st == AL_OK) {
        if (n < 4 || n > AL_BRUSH_MAX_FACES) abort();
        /* The compiler's brush builder takes the result. */
        al_face_desc *fd = calloc((size_t) n, sizeof *fd);
        if (!fd) abort();
        for (int f = 0; f < n; f++) memcpy(fd[f].points, out[f].points, sizeof fd[f].points);
        al_brush_desc bd = {.entity = 0, .first_face = 0, .face_count = n};
        al_entity_desc ed = {.classname = "worldspawn"};
        al_input in = {.entities = &ed,
                       .entity_count = 1,
                       .brushes = &bd,
                       .brush_count = 1,
                       .faces = fd,
                       .face_count = n};
        al_brush_builder *b = al_brush_builder_create();
        al_brush_measure m;
        bool nomem = false;
        al_diag_list diags = {0};
        if (!b || !al_brush_builder_measure(b, &in, 0, &m, &diags, &nomem)) {
            fprintf(stderr, "a moved brush the builder refuses: %s\n",
                    diags.count ? diags.items[0].message : "(no reason)");
            for (int f = 0; f < n; f++)
                fprintf(stderr,
                        "  ( %.17g %.17g %.17g ) ( %.17g %.17g %.17g ) ( %.17g %.17g %.17g )\n",
                        out[f].points[0][0], out[f].points[0][1], out[f].points[0][2],
                        out[f].points[1][0], out[f].points[1][1], out[f].points[1][2],
                        out[f].points[2][0], out[f].points[2][1], out[f].points[2][2]);
            abort();
        }
        al_diag_list_clear(&diags);
        al_brush_builder_destroy(b);
        free(fd);
    }
    free(g);
    free(out);
    return 0;
}
