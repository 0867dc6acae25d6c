/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interactive flame graph as one self-contained HTML file: the template
 * src/output/html/flame.html (HTML, CSS and script, embedded into cpuprof at build time) with
 * the flame graph tree (src/output/flame.c) as one JSON document written with jansson. Names
 * and files are shared in one string table and the nodes, depth first, are one string of
 * small numbers (see html.c), so that big profiles stay small. The page draws on a canvas
 * only the frames that show: click to zoom, reset, root at the bottom or top,
 * regular-expression search with the matched share, tooltips, a sortable top-functions
 * table; a differential graph colours by the change of share.
 */
#ifndef CPUPROF_HTML_H
#define CPUPROF_HTML_H
#include <stdio.h>
#include "output/flame.h"

/* Write f as a page with this title. 0, -ENOMEM or -EIO. */
int html_write(const struct flame *f, const char *title, FILE *out);

/*
 * Write the n bytes of JSON text s for a <script> element: '<', '>', '&', U+2028 and U+2029
 * escaped, so that no string can end the element or change how the page reads it. 0 or -EIO.
 */
int html_script_json(const char *s, size_t n, FILE *out);

/* Build the tree of p (differential against base when not NULL) and write it. */
int html_write_profile(const struct profile *p, const struct profile *base, bool per_thread,
		       const char *title, FILE *out);

#endif
