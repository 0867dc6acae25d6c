// SPDX-License-Identifier: GPL-2.0
/*
 * Checked number parsers for the command line. On failure the outputs are left untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/strnum.h"

#define MS_PER_DAY	(24ULL * 60 * 60 * 1000)
#define DURATION_MAX_MS (366 * MS_PER_DAY)

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A run of decimal digits at s; *end points past it. strtoull alone would also take leading
 * blanks and a sign ("-1" wraps around), so the first character is checked by hand.
 */
static int parse_digits(const char *s, const char **end, uint64_t *out)
{
	unsigned long long v;
	char *e;

	if (!is_digit(*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || e == s)
		return -EINVAL;
	*end = e;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err;

	if (!s)
		return -EINVAL;
	err = parse_digits(s, &end, &v);
	if (err)
		return err;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Milliseconds per unit; 0 for an unknown suffix. A missing suffix means seconds. */
static uint64_t unit_ms(const char *u)
{
	if (!*u || !strcmp(u, "s"))
		return 1000;
	if (!strcmp(u, "ms"))
		return 1;
	if (!strcmp(u, "m"))
		return 60 * 1000;
	if (!strcmp(u, "h"))
		return 60 * 60 * 1000;
	return 0;
}

/*
 * round(0.<digits> * mult) for the fraction digits [frac, frac_end), exactly: the digit string
 * is multiplied by mult from its last digit up, like long multiplication. What carries out of
 * the first digit is the integer part (*whole); the first digit of the product decides the
 * rounding (half away from zero). mult is at most 3.6e6, so no step overflows.
 */
static uint64_t round_fraction(const char *frac, const char *frac_end, uint64_t mult,
			       uint64_t *whole)
{
	uint64_t carry = 0, digit = 0;
	const char *p;

	for (p = frac_end; p > frac; p--) {
		uint64_t prod = (uint64_t)(p[-1] - '0') * mult + carry;

		digit = prod % 10;
		carry = prod / 10;
	}
	*whole = carry;
	return carry + (digit >= 5);
}

int parse_duration_ms(const char *s, uint64_t *ms)
{
	const char *p, *frac = NULL, *frac_end = NULL;
	uint64_t whole, mult, v, frac_whole = 0;
	int err;

	if (!s)
		return -EINVAL;
	err = parse_digits(s, &p, &whole);
	if (err)
		return err;
	if (*p == '.') {
		frac = ++p;
		while (is_digit(*p))
			p++;
		frac_end = p;
		if (frac == frac_end) /* "1." or "1.s" */
			return -EINVAL;
	}
	mult = unit_ms(p);
	if (!mult)
		return -EINVAL;

	if (whole > DURATION_MAX_MS / mult)
		return -ERANGE;
	v = whole * mult;
	if (frac)
		v += round_fraction(frac, frac_end, mult, &frac_whole);
	/* below 1 ms before rounding ("0.5ms") is below the minimum, not 1 ms */
	if (whole * mult + frac_whole < 1 || v > DURATION_MAX_MS)
		return -ERANGE;
	*ms = v;
	return 0;
}

int parse_pid_list(const char *s, pid_t **pids, size_t *n)
{
	const char *p, *end;
	pid_t *v = NULL;
	size_t cnt = 1, i = 0;
	uint64_t pid;
	int err;

	if (!s || !*s)
		return -EINVAL;
	for (p = s; *p; p++)
		cnt += *p == ',';
	v = calloc(cnt, sizeof(*v));
	if (!v)
		return -ENOMEM;

	for (p = s;; p = end + 1) {
		/* an empty item ("1,,2", "1,") fails here: it does not start with a digit */
		err = parse_digits(p, &end, &pid);
		if (err)
			goto out;
		if (*end && *end != ',') {
			err = -EINVAL;
			goto out;
		}
		if (pid < 1 || pid > INT32_MAX) {
			err = -ERANGE;
			goto out;
		}
		v[i++] = (pid_t)pid;
		if (!*end)
			break;
	}
	*pids = v;
	*n = i;
	v = NULL;
	err = 0;
out:
	free(v);
	return err;
}
