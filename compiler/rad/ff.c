/* Form factors: Lambert's contour integral from a differential area to a polygon.
 *
 * For a point P with unit normal N and a polygon with vertices v_k, the fraction of the
 * light leaving dA that lands on the polygon is
 *     F = 1 / (2 pi) * | sum_k  gamma_k  N . unit((v_k - P) x (v_k+1 - P)) |
 * where gamma_k is the angle the edge k subtends at P (Baum, Rushmeier and Winget 1989,
 * "Improving radiosity solutions through the use of analytically determined form
 * factors"). It is exact for an unoccluded polygon in front of dA's plane; a polygon that
 * crosses the plane is cut at it first (the part behind receives nothing).
 */
#include "rad-internal.h"

#include "al-vec3.h"

#include <math.h>

int al_rad_clip_front(const double p[3], const double n[3], const double (*poly)[3], int count,
                      double (*out)[3], int max)
{
    double d[AL_RAD_MAX_POLY];
    if (count > AL_RAD_MAX_POLY) count = AL_RAD_MAX_POLY;
    int front = 0;
    for (int k = 0; k < count; k++) {
        double r[3];
        al_sub(poly[k], p, r);
        d[k] = al_dot(r, n);
        front += d[k] > 0;
    }
    int m = 0;
    if (front == count) {
        for (int k = 0; k < count && m < max; k++) al_copy(poly[k], out[m++]);
        return m;
    }
    if (front == 0) return 0;
    for (int k = 0; k < count && m < max; k++) {
        int j = k + 1 == count ? 0 : k + 1;
        if (d[k] >= 0) al_copy(poly[k], out[m++]);
        if ((d[k] > 0 && d[j] < 0) || (d[k] < 0 && d[j] > 0)) {
            if (m == max) break;
            al_lerp(poly[k], poly[j], d[k] / (d[k] - d[j]), out[m++]);
        }
    }
    return m;
}

/* atan2(Y, X) for Y >= 0, within 2e-6 radians (measured over the half circle): the
 * angle an edge subtends is all the kernel needs, and libm's atan2 was a tenth of the
 * solver's time. atan on [0, 1] is Hastings' odd polynomial of degree 11. */
static double angle_of(double y, double x)
{
    double ax = fabs(x);
    bool steep = y > ax;
    double t = steep ? ax / y : (ax > 0 ? y / ax : 0);
    double t2 = t * t;
    double a = t * (0.99997726 +
                    t2 * (-0.33262347 +
                          t2 * (0.19354346 +
                                t2 * (-0.11643287 + t2 * (0.05265332 + t2 * -0.01172120)))));
    if (steep) a = M_PI_2 - a;
    return x < 0 ? M_PI - a : a;
}

double al_rad_lambert(const double p[3], const double n[3], const double (*poly)[3], int count)
{
    double sum = 0;
    double r0[3];
    al_sub(poly[count - 1], p, r0);
    for (int k = 0; k < count; k++) {
        double r1[3], c[3];
        al_sub(poly[k], p, r1);
        al_cross(r0, r1, c);
        double s = al_length(c);
        if (s > 1e-300) {
            double gamma = angle_of(s, al_dot(r0, r1));
            sum += gamma * al_dot(n, c) / s;
        }
        al_copy(r1, r0);
    }
    return fabs(sum) / (2.0 * M_PI);
}

double al_rad_point_polygon_ff(const double p[3], const double n[3], const double (*poly)[3],
                               int count)
{
    if (count < 3) return 0;
    double clipped[AL_RAD_MAX_POLY + 8][3];
    int m = al_rad_clip_front(p, n, poly, count, clipped, AL_RAD_MAX_POLY + 8);
    return m < 3 ? 0 : al_rad_lambert(p, n, (const double (*)[3]) clipped, m);
}

double al_rad_polygon_polygon_ff(const double (*a)[3], const double (*b)[3], int b_count,
                                 int samples)
{
    if (samples < 1 || b_count < 3) return 0;
    double e1[3], e2[3], n[3];
    al_sub(a[0], a[1], e1); /* p1 -> p0 */
    al_sub(a[2], a[1], e2); /* p1 -> p2 */
    al_cross(e1, e2, n);
    if (al_normalize(n, n) == 0) return 0;
    double sum = 0;
    for (int i = 0; i < samples; i++)
        for (int j = 0; j < samples; j++) {
            double u = (i + 0.5) / samples, v = (j + 0.5) / samples, q[3];
            for (int k = 0; k < 3; k++) q[k] = a[1][k] + u * e1[k] + v * e2[k];
            sum += al_rad_point_polygon_ff(q, n, b, b_count);
        }
    return sum / ((double) samples * samples);
}
