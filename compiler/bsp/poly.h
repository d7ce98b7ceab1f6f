/* Polygons fed to the BSP builders: boundary faces of one hull's expanded world. */
#ifndef AL_POLY_H
#define AL_POLY_H

#include "geom/winding.h"

#include <stdbool.h>

typedef struct al_bsp_poly {
    al_winding *winding; /* in the build arena */
    int plane;           /* plane table index; the normal points out of the solid */
    int hull;            /* the hull whose boundary this polygon is part of */
    bool candidate;      /* its plane has not split an ancestor yet */
    bool hint;           /* a hint face: no plane but a hint face's may cut it (split.c) */
    double mins[3], maxs[3];
} al_bsp_poly;

/* A growable array (malloc'd). */
typedef struct al_poly_vec {
    al_bsp_poly *items;
    int count;
    int capacity;
} al_poly_vec;

/* Appends P; returns false if memory runs out. */
bool al_poly_vec_push(al_poly_vec *v, const al_bsp_poly *p);
void al_poly_vec_free(al_poly_vec *v);

#endif
