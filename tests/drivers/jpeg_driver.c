/* libjpeg round trip: a synthetic 96x64 RGB image is compressed in memory (quality 85,
 * progressive) and decompressed again; prints the JPEG size, the decoded size and the
 * mean absolute error. libjpeg-turbo's SIMD dispatch keeps its CPU flags thread-local. */
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

#define W 96
#define H 64

int main(void)
{
    static unsigned char img[W * H * 3];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char *p = img + 3 * (y * W + x);
            p[0] = (unsigned char)(x * 255 / W);
            p[1] = (unsigned char)(y * 255 / H);
            p[2] = (unsigned char)((x ^ y) & 0xff);
        }
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    unsigned char *jpg = NULL;
    unsigned long jsize = 0;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &jpg, &jsize);
    c.image_width = W;
    c.image_height = H;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 85, TRUE);
    jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < H) {
        JSAMPROW row = img + c.next_scanline * W * 3;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);

    struct jpeg_decompress_struct d;
    d.err = jpeg_std_error(&err);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, jpg, jsize);
    jpeg_read_header(&d, TRUE);
    jpeg_start_decompress(&d);
    unsigned char *out = malloc((size_t)d.output_width * d.output_height * 3);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = out + d.output_scanline * d.output_width * 3;
        jpeg_read_scanlines(&d, &row, 1);
    }
    unsigned long sum = 0;
    for (int i = 0; i < W * H * 3; i++)
        sum += (unsigned long)abs(out[i] - img[i]);
    printf("jpeg %lu bytes, decoded %ux%u, mean abs error %.3f\n", jsize, d.output_width,
           d.output_height, (double)sum / (W * H * 3));
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(out);
    free(jpg);
    return 0;
}
