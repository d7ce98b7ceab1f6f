/* Numbers as the designer reads them, in the status bar and the views' readouts.
 *
 * printf's "%g" turns 1487.5 into "1.49e+03", and "%.2f" writes a normal's component of
 * -1e-17 as "-0.00"; these write plain fixed notation and no sign on a value that rounds
 * to zero.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Room for any number these write within the map's coordinate limits, and more. */
#define ALLIUM_NUMBER_SIZE 64

/* V with exactly DECIMALS decimals ("0.00", "-0.71"), into BUF; returns BUF. */
const char *allium_format_fixed(char buf[ALLIUM_NUMBER_SIZE], double v, int decimals);

/* V with at most DECIMALS decimals, trailing zeros dropped ("1487.5", "16", "-0.25"), into
 * BUF; returns BUF. */
const char *allium_format_short(char buf[ALLIUM_NUMBER_SIZE], double v, int decimals);

G_END_DECLS
