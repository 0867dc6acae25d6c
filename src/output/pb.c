// SPDX-License-Identifier: GPL-2.0
/* Wire format: https://protobuf.dev/programming-guides/encoding/ (varint, key = field<<3|type). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/pb.h"

enum {
	WIRE_VARINT = 0,
	WIRE_LEN = 2,
};

void pb_free(struct pb *b)
{
	free(b->buf);
	*b = (struct pb)PB_INIT;
}

void pb_reset(struct pb *b)
{
	b->len = 0;
	b->err = 0;
}

int pb_error(const struct pb *b)
{
	return b->err;
}

static int reserve(struct pb *b, size_t more)
{
	size_t ncap;
	uint8_t *nb;

	if (b->err)
		return b->err;
	if (b->len + more <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + more)
		ncap *= 2;
	nb = realloc(b->buf, ncap);
	if (!nb) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->buf = nb;
	b->cap = ncap;
	return 0;
}

/* Bytes of v as a varint (1 to 10). */
static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* v as a varint at p, with room for it: the end of what was written. */
static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

void pb_varint(struct pb *b, uint64_t v)
{
	if (reserve(b, 10))
		return;
	b->len = (size_t)(put_varint(b->buf + b->len, v) - b->buf);
}

static void key(struct pb *b, uint32_t field, unsigned int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint_always(struct pb *b, uint32_t field, uint64_t v)
{
	key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	if (v)
		pb_uint_always(b, field, v);
}

void pb_int(struct pb *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_bool(struct pb *b, uint32_t field, int v)
{
	pb_uint(b, field, v ? 1 : 0);
}

void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len)
{
	key(b, field, WIRE_LEN);
	pb_varint(b, len);
	if (reserve(b, len) || !len)
		return;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
}

void pb_string(struct pb *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb *b, uint32_t field, const struct pb *msg)
{
	if (msg->err) {
		b->err = msg->err;
		return;
	}
	pb_bytes(b, field, msg->buf, msg->len);
}

size_t pb_open(struct pb *b, uint32_t field)
{
	key(b, field, WIRE_LEN);
	if (reserve(b, 1))
		return 0;
	b->buf[b->len++] = 0;
	return b->len;
}

void pb_close(struct pb *b, size_t start)
{
	size_t len, extra;

	if (b->err || !start || start > b->len)
		return;
	len = b->len - start;
	extra = varint_len(len) - 1;
	if (extra) {
		if (reserve(b, extra))
			return;
		memmove(b->buf + start + extra, b->buf + start, len);
		b->len += extra;
	}
	/* the varint of len in the byte kept for it and the extra ones */
	put_varint(b->buf + start - 1, len);
}

void pb_append(struct pb *b, const struct pb *other)
{
	if (other->err) {
		b->err = other->err;
		return;
	}
	if (reserve(b, other->len) || !other->len)
		return;
	memcpy(b->buf + b->len, other->buf, other->len);
	b->len += other->len;
}

void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n)
{
	uint8_t *p;
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	key(b, field, WIRE_LEN);
	pb_varint(b, len);
	if (reserve(b, len))
		return;
	p = b->buf + b->len;
	for (size_t i = 0; i < n; i++)
		p = put_varint(p, v[i]);
	b->len += len;
}
