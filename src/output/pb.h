/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small protocol-buffers encoder: enough of the wire format for profile.proto, which only
 * uses varint (wire type 0) and length-delimited (wire type 2) fields.
 *
 * A struct pb is a growable byte buffer. Nested messages are written in place between pb_open()
 * and pb_close(), or into their own buffer and appended with pb_message(). Errors are sticky: after
 * an allocation failure every call is a no-op and pb_error() reports -ENOMEM, so callers check once
 * at the end.
 */
#ifndef CPUPROF_PB_H
#define CPUPROF_PB_H
#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

/* An empty buffer (no allocation yet). */
#define PB_INIT               \
	{                     \
		NULL, 0, 0, 0 \
	}

void pb_free(struct pb *b);
/* Keep the allocation, drop the contents and the error. */
void pb_reset(struct pb *b);
int pb_error(const struct pb *b);

/* Raw varint (base-128, least significant group first). */
void pb_varint(struct pb *b, uint64_t v);

/* Field `field` as a varint; omitted when v is 0 (the proto3 default). */
void pb_uint(struct pb *b, uint32_t field, uint64_t v);
/* The same, written even when v is 0. */
void pb_uint_always(struct pb *b, uint32_t field, uint64_t v);
/* int64 fields: two's complement in a varint, not zigzag. */
void pb_int(struct pb *b, uint32_t field, int64_t v);
void pb_bool(struct pb *b, uint32_t field, int v);

/* Length-delimited: bytes, a string (without its NUL), or a nested message's buffer. */
void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len);
void pb_string(struct pb *b, uint32_t field, const char *s);
void pb_message(struct pb *b, uint32_t field, const struct pb *msg);

/*
 * A nested message written in place: pb_open writes the key and room for a one-byte length and
 * returns where the message's fields begin; pb_close(b, that) writes the length, moving the
 * fields when it needs more than one byte. Saves the copy pb_message makes.
 */
size_t pb_open(struct pb *b, uint32_t field);
void pb_close(struct pb *b, size_t start);

/* Append the bytes of another buffer as they are (fields already keyed). */
void pb_append(struct pb *b, const struct pb *other);

/* A packed repeated varint field; nothing is written for n == 0. */
void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n);

#endif
