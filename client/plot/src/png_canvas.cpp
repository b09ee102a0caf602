#include "png_canvas.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace tsserve::plot {
namespace {

struct PngSink {
  std::FILE* file = nullptr;
  int error = 0;  // errno of the first failed write
};

cairo_status_t write_chunk(void* closure, const unsigned char* data, unsigned int length) {
  auto* sink = static_cast<PngSink*>(closure);
  if (std::fwrite(data, 1, length, sink->file) != length) {
    sink->error = errno;
    return CAIRO_STATUS_WRITE_ERROR;
  }
  return CAIRO_STATUS_SUCCESS;
}

std::runtime_error write_error(const std::string& path, const std::string& reason) {
  return std::runtime_error("cannot write plot PNG '" + path + "': " + reason);
}

}  // namespace

PngCanvas::PngCanvas(int width, int height)
    : width_(width),
      height_(height),
      surface_(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)) {
  if (cairo_surface_status(surface_.get()) != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(
        "cannot create a " + std::to_string(width) + " x " + std::to_string(height) +
        " px image: " + cairo_status_to_string(cairo_surface_status(surface_.get())));
  }
  cr_.reset(cairo_create(surface_.get()));
  cairo_set_source_rgb(cr_.get(), 1, 1, 1);
  cairo_paint(cr_.get());
}

void PngCanvas::write_png(const std::string& path) const {
  if (cairo_status(cr_.get()) != CAIRO_STATUS_SUCCESS) {
    throw write_error(
        path, std::string("drawing failed: ") + cairo_status_to_string(cairo_status(cr_.get())));
  }
  cairo_surface_flush(surface_.get());
  // Our own FILE rather than cairo_surface_write_to_png(path): cairo reports every
  // failure as a bare WRITE_ERROR, and the user needs to know why (no such directory,
  // permission denied, disk full).
  PngSink sink;
  sink.file = std::fopen(path.c_str(), "wb");
  if (sink.file == nullptr) {
    throw write_error(path, std::strerror(errno));
  }
  const cairo_status_t status =
      cairo_surface_write_to_png_stream(surface_.get(), write_chunk, &sink);
  const bool closed = std::fclose(sink.file) == 0;
  if (sink.error == 0 && !closed) {
    sink.error = errno;
  }
  if (sink.error != 0) {
    throw write_error(path, std::strerror(sink.error));
  }
  if (status != CAIRO_STATUS_SUCCESS) {
    throw write_error(path, cairo_status_to_string(status));
  }
}

}  // namespace tsserve::plot
