/* The compiled world in the runtime's portable format (compiler/runtime/FORMAT.md), the
 * file games load with the runtime library (compiler/runtime/allium-runtime.h).
 *
 * Entry points: al_runtime_write (bytes), al_runtime_write_file (a file, written whole or
 * not at all). The one writer of the format; the runtime library is its one reader.
 */
#ifndef AL_RUNTIME_H
#define AL_RUNTIME_H

#include "al-rad.h"
#include "al-status.h"
#include "al-world.h"

#include <stddef.h>

/* What a runtime world is made of: WORLD compiled from INPUT (its entities are written as
 * they are there), and optionally its light: RAD, a solver of WORLD, with LIGHTMAP, a
 * snapshot of it (both NULL: no lightmaps). Only read. */
typedef struct al_runtime_source {
    const al_world *world;
    const al_input *input;
    const al_rad *rad;
    const al_rad_lightmap *lightmap;
} al_runtime_source;

/* The runtime world of SRC as bytes, malloc'd into *DATA. The same source always gives the
 * same bytes. AL_ERR_NOMEM; AL_ERR_INVALID_ARGUMENT for a lightmap that is not the solver's
 * (or a solver without a lightmap). */
al_status al_runtime_write(const al_runtime_source *src, void **data, size_t *size);

/* al_runtime_write into the file PATH, through a temporary file beside it renamed over
 * PATH at the end: a failure leaves no partial file. AL_ERR_IO when it cannot be written. */
al_status al_runtime_write_file(const al_runtime_source *src, const char *path);

#endif
