/* Map documents for tests (see doc-fixture.h). */
#include "doc-fixture.h"

#include "mapgen.h"
#include "mapfile/map.h"
#include "store/map-doc.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char folder[256] = "/tmp";

void fixture_set_dir(const char *dir)
{
    snprintf(folder, sizeof folder, "%s", dir);
}

const char *fixture_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return path;
}

void fixture_box_faces(double x0, double y0, double z0, double x1, double y1, double z1,
                       const char *material, al_doc_face faces[6])
{
    /* Outward by the .map rule: normal = (p0 - p1) x (p2 - p1). */
    const double p[6][3][3] = {
        {{x0, y1, z1}, {x0, y0, z1}, {x0, y0, z0}}, {{x1, y0, z1}, {x1, y1, z1}, {x1, y1, z0}},
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y0, z0}}, {{x1, y1, z1}, {x0, y1, z1}, {x0, y1, z0}},
        {{x1, y0, z0}, {x1, y1, z0}, {x0, y1, z0}}, {{x1, y1, z1}, {x1, y0, z1}, {x0, y0, z1}},
    };
    for (int f = 0; f < 6; f++) {
        memset(&faces[f], 0, sizeof faces[f]);
        memcpy(faces[f].points, p[f], sizeof p[f]);
        faces[f].material = material;
        faces[f].scale[0] = faces[f].scale[1] = 1;
    }
}

bool fixture_make_map(const char *path, int brushes)
{
    mapgen *g = mapgen_create(false);
    if (!g) return false;
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "message", "fixture");
    for (int b = 0; b < brushes; b++) {
        double x = (b % 32) * 80.0, y = (b / 32) * 80.0;
        mapgen_box(g, x, y, 0, x + 64, y + 48, 32 + (b % 7) * 16, b % 5 ? "wall" : "floor");
    }
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 40, 40, 100);
    mapgen_point_entity(g, "light", 200, 200, 200);
    size_t length;
    const char *text = mapgen_text(g, &length);
    al_map *map = NULL;
    bool ok = al_map_read_buffer(text, length, &map, NULL) == AL_OK;
    al_doc *doc = NULL;
    ok = ok && al_doc_create(path, &doc, NULL) == AL_OK;
    ok = ok && al_doc_import_map(doc, map, NULL) == AL_OK;
    al_doc_close(doc);
    al_map_destroy(map);
    mapgen_destroy(g);
    return ok;
}

uint64_t fixture_file_hash(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint64_t h = 1469598103934665603u;
    unsigned char buf[65536];
    size_t got, total = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; i++) h = (h ^ buf[i]) * 1099511628211u;
        total += got;
    }
    fclose(f);
    return (h ^ total) * 1099511628211u | 1;
}

bool fixture_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}
