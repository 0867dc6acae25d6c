/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A static flame graph as SVG, in flamegraph.pl's look: 1200 px wide, 16 px frames, root at
 * the bottom, widths by samples, the title and the sample count on top, a tooltip (<title>)
 * per frame with its samples and share; colours by kind as flamegraph.pl's java palette
 * (user warm red-yellow, kernel "_[k]" orange, inlined "_[i]" aqua, process and thread yellow),
 * each shade from a hash of the name so that the same function has the same colour everywhere;
 * frames narrower than 0.1 px left out. No script: it shows as it is in a browser, a README
 * or a CI artifact viewer. A differential graph (widths by the new profile) colours each frame
 * by the change of its share of the samples: red grew, blue shrank, white unchanged.
 */
#ifndef CPUPROF_SVG_H
#define CPUPROF_SVG_H
#include <stdio.h>
#include "output/flame.h"

#define SVG_WIDTH	 1200
#define SVG_XPAD	 10
#define SVG_FRAME_HEIGHT 16

/* Write the flame graph of f with this title. 0 or -EIO. */
int svg_write(const struct flame *f, const char *title, FILE *out);

/* Build the tree of p (differential against base when not NULL) and write it. 0, -ENOMEM,
 * -EIO. */
int svg_write_profile(const struct profile *p, const struct profile *base, bool per_thread,
		      const char *title, FILE *out);

#endif
