/* Map documents for tests: files in the test's folder, box faces, a document filled with a
 * generated map, and file fingerprints for "the file was not touched" checks. */
#ifndef ALLIUM_DOC_FIXTURE_H
#define ALLIUM_DOC_FIXTURE_H

#include "store/document.h"

#include <stdbool.h>
#include <stdint.h>

/* The folder test documents go to (the build tree when meson runs the test). */
void fixture_set_dir(const char *dir);

/* DIR/NAME in a static buffer, with any file of that name and its -wal and -shm files
 * removed first. */
const char *fixture_path(const char *name);

/* The six faces of the box [x0, x1] x [y0, y1] x [z0, z1], pointing out. */
void fixture_box_faces(double x0, double y0, double z0, double x1, double y1, double z1,
                       const char *material, al_doc_face faces[6]);

/* Creates a document at PATH holding BRUSHES boxes in rows, a few entities and a
 * light, then closes it. */
bool fixture_make_map(const char *path, int brushes);

/* A fingerprint of the file's bytes (FNV-1a) with its size mixed in; 0 if it cannot be
 * read. */
uint64_t fixture_file_hash(const char *path);

/* Whether PATH exists. */
bool fixture_exists(const char *path);

#endif
