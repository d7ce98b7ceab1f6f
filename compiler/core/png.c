/* PNG writer (see al-png.h): signature, IHDR, one IDAT of stored (uncompressed) deflate blocks,
 * IEND. Files are larger than compressed ones, which is fine for occasional pictures. */
#include "al-png.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc(uint32_t c, const uint8_t *p, size_t n)
{
    c = ~c;
    while (n--) c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t) (v >> 24);
    p[1] = (uint8_t) (v >> 16);
    p[2] = (uint8_t) (v >> 8);
    p[3] = (uint8_t) v;
}

static bool chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t head[8];
    be32(head, len);
    memcpy(head + 4, type, 4);
    uint32_t c = crc(0, head + 4, 4);
    c = crc(c, data, len);
    uint8_t tail[4];
    be32(tail, c);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) &&
           fwrite(tail, 1, 4, f) == 4;
}

bool al_png_write(const char *path, int width, int height, const uint8_t *rgb)
{
    crc_init();
    size_t row = (size_t) width * 3 + 1, raw_len = row * (size_t) height;
    uint8_t *raw = malloc(raw_len);
    size_t blocks = raw_len / 65535 + 1;
    size_t z_len = 2 + raw_len + blocks * 5 + 4;
    uint8_t *z = malloc(z_len);
    if (!raw || !z) {
        free(raw);
        free(z);
        return false;
    }
    for (int y = 0; y < height; y++) {
        raw[y * row] = 0; /* filter: none */
        memcpy(raw + y * row + 1, rgb + (size_t) y * width * 3, (size_t) width * 3);
    }
    size_t o = 0;
    z[o++] = 0x78;
    z[o++] = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < raw_len; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    for (size_t at = 0; at < raw_len || at == 0;) {
        size_t n = raw_len - at > 65535 ? 65535 : raw_len - at;
        z[o++] = at + n == raw_len ? 1 : 0;
        z[o++] = (uint8_t) n;
        z[o++] = (uint8_t) (n >> 8);
        z[o++] = (uint8_t) ~n;
        z[o++] = (uint8_t) (~n >> 8);
        memcpy(z + o, raw + at, n);
        o += n;
        at += n;
        if (raw_len == 0) break;
    }
    be32(z + o, (b << 16) | a);
    o += 4;
    uint8_t ihdr[13];
    be32(ihdr, (uint32_t) width);
    be32(ihdr + 4, (uint32_t) height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0;
    ihdr[12] = 0;
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) == 8 && chunk(f, "IHDR", ihdr, 13) &&
              chunk(f, "IDAT", z, (uint32_t) o) && chunk(f, "IEND", NULL, 0);
    if (f && fclose(f) != 0) ok = false;
    free(raw);
    free(z);
    return ok;
}
