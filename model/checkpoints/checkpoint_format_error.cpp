#include "checkpoint_format_error.h"

#include <c10/util/Exception.h>

#include <exception>
#include <new>

#include "tsserve/model/model_error.h"

namespace tsserve::model::detail {
namespace {

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string printable(std::string_view text, size_t max_shown) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_shown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += static_cast<char>(byte);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
    }
  }
  if (text.size() > max_shown) out += "...";
  return out;
}

std::string quote(std::string_view text) { return "'" + printable(text, 80) + "'"; }

void rethrow_as_model_error(const std::string& path) {
  const std::string prefix = "checkpoint " + path + ": ";
  try {
    throw;
  } catch (const ModelError&) {
    throw;  // already user-facing and already names the file
  } catch (const CheckpointFormatError& e) {
    throw ModelError(prefix + e.what());
  } catch (const c10::Error& e) {
    throw ModelError(prefix + printable(without_trailing_newlines(e.msg())));
  } catch (const std::bad_alloc&) {
    throw ModelError(prefix + "out of memory while reading the file");
  } catch (const std::exception& e) {
    throw ModelError(prefix + printable(without_trailing_newlines(e.what())));
  } catch (...) {
    throw ModelError(prefix + "unexpected error while reading the file");
  }
}

}  // namespace tsserve::model::detail
