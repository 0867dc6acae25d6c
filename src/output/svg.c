// SPDX-License-Identifier: GPL-2.0
/* Layout constants are flamegraph.pl's (brendangregg/FlameGraph): font size 12, 16 px frames,
 * 1 px frame padding, minimum width 0.1 px, 0.59 em per character. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/svg.h"

#define FONT_SIZE  12
#define FONT_WIDTH 0.59
#define MIN_WIDTH  0.1
#define YPAD1	   (FONT_SIZE * 3)
#define YPAD2	   (FONT_SIZE * 2 + 10)
/* Levels drawn at most: a 65 536-deep stack would make a million-pixel-tall image, which
 * browsers leave blank. Deeper frames are left out, and the graph says so. */
#define SVG_MAX_LEVELS 256
/* Taller than this (a laptop's window), the graph says where its root is. */
#define SVG_SCREEN 900

/* A number in [0, 1) from the name, stable across runs (FNV-1a). */
static double name_hash(const char *s, unsigned salt)
{
	uint32_t h = 2166136261u ^ salt;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (double)(h % 1000) / 1000.0;
}

static void colour(const struct flame *f, const struct flame_node *n, double max_change, char *buf,
		   size_t size)
{
	double v1 = name_hash(n->name, 1), v2 = name_hash(n->name, 2), v3 = name_hash(n->name, 3);
	int r, g, b;

	if (f->diff) {
		double base = f->nodes[0].base_total
				      ? (double)n->base_total / f->nodes[0].base_total
				      : 0,
		       now = f->nodes[0].total ? (double)n->total / f->nodes[0].total : 0;
		double d = max_change > 0 ? (now - base) / max_change : 0;
		int k = (int)(210 * (d < 0 ? -d : d));

		snprintf(buf, size, d > 0 ? "rgb(255,%d,%d)" : "rgb(%d,%d,255)", 255 - k, 255 - k);
		return;
	}
	switch (n->kind) {
	case FLAME_KERNEL:
		r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;
		break;
	case FLAME_INLINED:
		r = 50 + (int)(60 * v1), g = 165 + (int)(55 * v1), b = 165 + (int)(55 * v1);
		break;
	case FLAME_PROCESS:
	case FLAME_THREAD:
		r = 175 + (int)(55 * v1), g = r, b = 50 + (int)(20 * v2);
		break;
	case FLAME_PSEUDO:
	case FLAME_ROOT:
		r = g = b = 200 + (int)(20 * v1);
		break;
	default:
		r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
		break;
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

static double share_change(const struct flame *f, const struct flame_node *n)
{
	double base = f->nodes[0].base_total ? (double)n->base_total / f->nodes[0].base_total : 0;
	double now = f->nodes[0].total ? (double)n->total / f->nodes[0].total : 0;

	return now - base;
}

int svg_write(const struct flame *f, const char *title, FILE *out)
{
	const double width = SVG_WIDTH - 2 * SVG_XPAD;
	const unsigned levels = f->max_depth < SVG_MAX_LEVELS ? f->max_depth + 1 : SVG_MAX_LEVELS;
	const unsigned tall = levels * SVG_FRAME_HEIGHT + YPAD1 + YPAD2;
	const bool note = tall > SVG_SCREEN || levels <= f->max_depth;
	const unsigned height = tall + (note ? FONT_SIZE + 6 : 0);
	char note_text[200] = "", deeper[80] = "";
	uint64_t total = f->nodes[0].total, *x = calloc(f->n ? f->n : 1, sizeof(*x));
	uint32_t *q = malloc((f->n ? f->n : 1) * sizeof(*q));
	char esc[2048], label[1100], fill[32], info[160];
	double max_change = 0;
	int err = 0;

	if (!x || !q) {
		free(x);
		free(q);
		return -ENOMEM;
	}
	if (f->diff)
		for (size_t i = 0; i < f->n; i++) {
			double d = share_change(f, &f->nodes[i]);

			if ((d < 0 ? -d : d) > max_change)
				max_change = d < 0 ? -d : d;
		}
	/* x of each node in samples: children side by side from their parent's x */
	for (size_t i = 0; i + 1 < f->n;) {
		uint32_t par = f->nodes[f->order[i]].parent;
		uint64_t cursor = x[par];

		for (; i + 1 < f->n && f->nodes[f->order[i]].parent == par; i++) {
			x[f->order[i]] = cursor;
			cursor += f->nodes[f->order[i]].total;
		}
	}
	if (levels <= f->max_depth)
		snprintf(deeper, sizeof(deeper), "; the %u deepest of %u levels not drawn",
			 f->max_depth + 1 - levels, f->max_depth + 1);
	if (note)
		snprintf(
			note_text, sizeof(note_text),
			"<text x=\"%d\" y=\"44\" text-anchor=\"middle\">%u levels, %u px tall: the "
			"root is at the bottom%s</text>\n",
			SVG_WIDTH / 2, levels, height, deeper);
	flame_xml_escape(title, esc, sizeof(esc));
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" "
		"offset=\"95%%\"/></linearGradient></defs>\n"
		"<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: "
		"%dpx; "
		"fill: rgb(0,0,0); }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"url(#background)\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: "
		"17px\">%s</text>\n"
		"%s<text x=\"%d\" y=\"%u\">%llu samples%s</text>\n"
		"<g id=\"frames\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height, FONT_SIZE, SVG_WIDTH, height, SVG_WIDTH / 2,
		esc, note_text, SVG_XPAD, height - 17, (unsigned long long)total,
		f->diff ? "; red: share grew, blue: share shrank (from the base profile)" : "");
	/*
	 * The nodes breadth first, children by name: an order of the tree's content. The order
	 * the nodes were made in is that of the profile's samples, which a profile read back from
	 * disk holds in another order than one kept in memory.
	 */
	q[0] = 0;
	for (size_t head = 0, tail = 1; head < tail && tail < f->n; head++) {
		const struct flame_node *n = &f->nodes[q[head]];

		for (uint32_t c = 0; c < n->n_children && tail < f->n; c++)
			q[tail++] = f->order[n->first_child + c];
	}
	for (size_t qi = 0; qi < f->n && !err; qi++) {
		const uint32_t i = q[qi];
		const struct flame_node *n = &f->nodes[i];
		double w = total ? (double)n->total * width / (double)total : 0;
		double x1 = SVG_XPAD + (total ? (double)x[i] * width / (double)total : 0);
		unsigned y1 = height - YPAD2 - (n->depth + 1) * SVG_FRAME_HEIGHT + 1;
		size_t chars = (size_t)(w / (FONT_SIZE * FONT_WIDTH));

		if (w < MIN_WIDTH || !n->total || n->depth >= levels)
			continue;
		flame_label(n, label, sizeof(label));
		if (f->diff)
			snprintf(info, sizeof(info), "%llu samples, %.2f%%; %+.2f points",
				 (unsigned long long)n->total, 100.0 * n->total / total,
				 100.0 * share_change(f, n));
		else
			snprintf(info, sizeof(info), "%llu samples, %.2f%%",
				 (unsigned long long)n->total, 100.0 * n->total / total);
		flame_xml_escape(label, esc, sizeof(esc));
		colour(f, n, max_change, fill, sizeof(fill));
		fprintf(out,
			"<g><title>%s (%s)</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>",
			esc, info, x1, y1, w, SVG_FRAME_HEIGHT - 1, fill);
		if (chars >= 3) {
			/* the label cut to fit, ".." marking the cut (flamegraph.pl's rule) */
			if (strlen(label) > chars) {
				label[chars - 2] = '\0';
				/* do not leave half of a UTF-8 sequence */
				for (size_t k = chars - 2;
				     k && ((unsigned char)label[k - 1] & 0xc0) == 0x80;)
					label[--k] = '\0';
				if (label[0] &&
				    ((unsigned char)label[strlen(label) - 1] & 0xc0) == 0xc0)
					label[strlen(label) - 1] = '\0';
				strcat(label, "..");
			}
			flame_xml_escape(label, esc, sizeof(esc));
			fprintf(out, "<text x=\"%.1f\" y=\"%u\">%s</text>", x1 + 3, y1 + 11, esc);
		}
		if (fputs("</g>\n", out) < 0)
			err = -EIO;
	}
	if (!err && (fputs("</g>\n</svg>\n", out) < 0 || fflush(out)))
		err = -EIO;
	free(x);
	free(q);
	return err;
}

int svg_write_profile(const struct profile *p, const struct profile *base, bool per_thread,
		      const char *title, FILE *out)
{
	struct flame f;
	int err = flame_build(p, base, per_thread, &f);

	if (err)
		return err;
	err = svg_write(&f, title, out);
	flame_free(&f);
	return err;
}
