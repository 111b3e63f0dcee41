// SPDX-License-Identifier: MIT
#include "png_writer.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <vector>

namespace particles {
namespace {

// libpng reports errors by longjmp to the setjmp in write(), so write() holds no object with a destructor:
// the row buffer is the caller's.
bool write(std::FILE* file, uint32_t width, uint32_t height, const uint32_t* rgba, png_byte* row) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; ++y) {
        for (uint32_t x = 0; x < width; ++x) {
            const uint32_t p = rgba[size_t(y) * width + x];
            for (int c = 0; c < 4; ++c) row[4 * size_t(x) + c] = static_cast<png_byte>(p >> (8 * c));
        }
        png_write_row(png, row);
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

} // namespace

std::string writePng(const std::string& path, uint32_t width, uint32_t height,
                     const std::vector<uint32_t>& rgba) {
    if (width == 0 || height == 0 || rgba.size() != size_t(width) * height)
        return "the image's size does not match its width and height";
    const std::string temporary = path + ".partial";
    std::FILE* file = std::fopen(temporary.c_str(), "wb");
    if (!file) return "cannot create " + temporary;
    std::vector<png_byte> row(size_t(width) * 4);
    const bool written = write(file, width, height, rgba.data(), row.data());
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed || std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        return "cannot write " + path;
    }
    return {};
}

} // namespace particles
