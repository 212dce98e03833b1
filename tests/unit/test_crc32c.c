/* CRC32C: standard vector, chaining over any split, and a bitwise reference on random data. */
#include <compsc/compsc.h>
#include "check.h"

/* The polynomial's definition, one bit at a time: the table's oracle. */
static u32 crc_bitwise(const unsigned char *p, size_t n)
{
	u32 c = ~0u;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

int main(void)
{
	static const char v[] = "123456789";
	unsigned char buf[1024];
	uint64_t s = test_seed("test_crc32c");

	CHECK_EQ(compsc_crc32c(0, v, 9), 0xE3069283u);
	CHECK_EQ(compsc_crc32c(0, v, 0), 0);
	CHECK_EQ(compsc_crc32c(0x12345678u, v, 0), 0x12345678u);
	/* 32 zero bytes and 32 0xff bytes: iSCSI (RFC 3720 B.4) vectors */
	memset(buf, 0, 32);
	CHECK_EQ(compsc_crc32c(0, buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, 32);
	CHECK_EQ(compsc_crc32c(0, buf, 32), 0x62A8AB43u);
	for (unsigned i = 0; i <= 9; i++)
		CHECK_EQ(compsc_crc32c(compsc_crc32c(0, v, i), v + i, 9 - i),
			 0xE3069283u);
	for (int round = 0; round < 200; round++) {
		size_t n = test_rand(&s) % sizeof(buf), cut;

		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)test_rand(&s);
		cut = n ? test_rand(&s) % (n + 1) : 0;
		CHECK_EQ(compsc_crc32c(0, buf, (u32)n), crc_bitwise(buf, n));
		CHECK_EQ(compsc_crc32c(compsc_crc32c(0, buf, (u32)cut),
				       buf + cut, (u32)(n - cut)),
			 crc_bitwise(buf, n));
	}
	CHECK_DONE();
}
