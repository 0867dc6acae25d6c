// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "output/failif.h"

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int bad(char *why, size_t size, const char *msg)
{
	snprintf(why, size, "%s", msg);
	return -EINVAL;
}

int failif_parse(const char *s, struct failif *f, char *why, size_t size)
{
	const char *p = skip_space(s), *close;
	char *end;
	size_t n;

	memset(f, 0, sizeof(*f));
	snprintf(f->text, sizeof(f->text), "%s", s);
	if (!strncmp(p, "total", 5) || !strncmp(p, "self", 4)) {
		f->metric = *p == 't' ? FAILIF_TOTAL : FAILIF_SELF;
		p = skip_space(p + (*p == 't' ? 5 : 4));
		if (*p != '(')
			return bad(why, size,
				   "expected '(' after total or self, as in total(parse_*)");
		p = skip_space(p + 1);
		close = strchr(p, ')');
		if (!close)
			return bad(why, size, "missing ')' after the function pattern");
		n = (size_t)(close - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n)
			return bad(why, size, "empty function pattern: give a name, a glob or any");
		if (n >= sizeof(f->glob))
			return bad(why, size, "function pattern too long");
		memcpy(f->glob, p, n);
		if (!strcmp(f->glob, "any"))
			strcpy(f->glob, "*");
		p = close + 1;
	} else if (!strncmp(p, "samples", 7)) {
		f->metric = FAILIF_SAMPLES;
		p += 7;
	} else {
		return bad(why, size, "expected total(GLOB), self(GLOB) or samples");
	}
	p = skip_space(p);
	if (*p == '>' || *p == '<') {
		bool eq = p[1] == '=';

		f->op = *p == '>' ? (eq ? FAILIF_GE : FAILIF_GT) : (eq ? FAILIF_LE : FAILIF_LT);
		p += eq ? 2 : 1;
	} else {
		return bad(why, size, "expected a comparison: >, >=, < or <=");
	}
	p = skip_space(p);
	if (!*p)
		return bad(why, size, "missing the value after the comparison");
	if (f->metric == FAILIF_SAMPLES && (*p < '0' || *p > '9'))
		return bad(why, size, "samples compares with a whole number, as in samples < 100");
	if (f->metric != FAILIF_SAMPLES && *p != '+' && *p != '-' && (*p < '0' || *p > '9'))
		return bad(why, size, "expected a change in points such as +5%");
	errno = 0;
	if (f->metric == FAILIF_SAMPLES) {
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p || errno || (*end && *end != ' ' && *end != '\t') || v > (1ull << 53))
			return bad(why, size, "samples compares with a whole number");
		f->value = (double)v;
		p = end;
	} else {
		f->value = strtod(p, &end);
		if (end == p || errno || f->value != f->value)
			return bad(why, size, "the value is not a number");
		p = end;
		if (*p != '%')
			return bad(why, size, "the change needs a '%': points of share, as in +5%");
		p++;
		if (f->value < -100 || f->value > 100)
			return bad(why, size, "a change of share lies within -100% and +100%");
	}
	p = skip_space(p);
	if (*p)
		return bad(why, size, "unexpected text after the value");
	return 0;
}

static bool holds(enum failif_op op, double v, double limit)
{
	switch (op) {
	case FAILIF_GT:
		return v > limit;
	case FAILIF_GE:
		return v >= limit;
	case FAILIF_LT:
		return v < limit;
	default:
		return v <= limit;
	}
}

size_t failif_eval(const struct failif *f, const struct diff *d, const char *base_name,
		   const char *new_name, FILE *out)
{
	size_t n = 0;

	if (f->metric == FAILIF_SAMPLES) {
		if (holds(f->op, (double)d->base_samples, f->value)) {
			fprintf(out, "fail-if '%s': %s has %llu samples\n", f->text, base_name,
				(unsigned long long)d->base_samples);
			n++;
		}
		if (holds(f->op, (double)d->new_samples, f->value)) {
			fprintf(out, "fail-if '%s': %s has %llu samples\n", f->text, new_name,
				(unsigned long long)d->new_samples);
			n++;
		}
		return n;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_row *r = &d->rows[i];
		bool total = f->metric == FAILIF_TOTAL;
		double change = total ? diff_total_change(d, r) : diff_self_change(d, r);

		if (fnmatch(f->glob, r->key, 0) || !holds(f->op, change, f->value))
			continue;
		fprintf(out, "fail-if '%s': %s %s %.2f%% -> %.2f%% (%+.2f points)\n", f->text,
			r->key, total ? "total" : "self",
			diff_pct(total ? r->base_total : r->base_self, d->base_samples),
			diff_pct(total ? r->new_total : r->new_self, d->new_samples), change);
		n++;
	}
	return n;
}
