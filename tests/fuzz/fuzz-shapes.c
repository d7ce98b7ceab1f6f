/* libFuzzer target: the shape generators (data/shapes) over any parameters.
 *
 * The input's bytes fill a shape description: the kind, axis and counts from single bytes,
 * the sizes, angle and centre from doubles read as they lie in the input (NaN, infinity,
 * denormals and huge values included). A refusal must come with a diagnostic; a shape
 * that is built must have every brush taken by the compiler's brush builder, without a
 * face ignored, and its corners inside the map's limits. See tests/meson.build for running
 * it. */
#include "shapes/shapes.h"

#include "al-brush.h"
#include "al-epsilon.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next double of the input (0 when it has run out). */
static double take_double(const uint8_t **data, size_t *size)
{
    double v = 0;
    if (*size >= sizeof v) {
        memcpy(&v, *data, sizeof v);
        *data += sizeof v;
        *size -= sizeof v;
    }
    return v;
}

static int take_byte(const uint8_t **data, size_t *size)
{
    if (*size == 0) return 0;
    int v = **data;
    (*data)++;
    (*size)--;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    al_shape_desc d;
    memset(&d, 0, sizeof d);
    d.kind = (al_shape_kind) (take_byte(&data, &size) % (AL_SHAPE_COUNT + 1));
    d.axis = take_byte(&data, &size) % 4;
    d.segments = take_byte(&data, &size);
    d.rings = take_byte(&data, &size) % 80;
    d.steps = take_byte(&data, &size);
    d.radius = take_double(&data, &size);
    d.inner_radius = take_double(&data, &size);
    d.height = take_double(&data, &size);
    d.thickness = take_double(&data, &size);
    d.angle = take_double(&data, &size);
    d.width = take_double(&data, &size);
    d.length = take_double(&data, &size);
    for (int k = 0; k < 3; k++) d.centre[k] = take_double(&data, &size);

    al_shape shape;
    al_diag_list diags = {0};
    al_status st = al_shape_build(&d, &shape, &diags);
    if (st != AL_OK) {
        if (diags.count == 0 && st != AL_ERR_NOMEM) abort();
        al_diag_list_clear(&diags);
        return 0;
    }
    al_brush_builder *builder = al_brush_builder_create();
    if (!builder) abort();
    for (int b = 0; b < shape.brush_count; b++) {
        int first = shape.first_face[b], n = shape.first_face[b + 1] - first;
        al_face_desc *faces = calloc((size_t) n, sizeof *faces);
        if (!faces) abort();
        for (int f = 0; f < n; f++) {
            memcpy(faces[f].points, shape.faces[first + f], sizeof faces[f].points);
            faces[f].material = -1;
            for (int i = 0; i < 9; i++)
                if (!(faces[f].points[i / 3][i % 3] <= AL_COORD_MAX &&
                      faces[f].points[i / 3][i % 3] >= -AL_COORD_MAX))
                    abort();
        }
        al_entity_desc world = {.classname = "worldspawn", .line = -1};
        al_brush_desc brush = {
            .entity = 0, .index = b, .first_face = 0, .face_count = n, .line = -1};
        al_input in = {.entities = &world,
                       .entity_count = 1,
                       .brushes = &brush,
                       .brush_count = 1,
                       .faces = faces,
                       .face_count = n};
        al_brush_measure m;
        al_diag_list d2 = {0};
        bool nomem = false;
        if (!al_brush_builder_measure(builder, &in, 0, &m, &d2, &nomem) && !nomem) abort();
        if (al_diag_count(&d2, AL_SEVERITY_WARNING) != 0) abort();
        al_diag_list_clear(&d2);
        free(faces);
    }
    al_brush_builder_destroy(builder);
    al_shape_free(&shape);
    return 0;
}
