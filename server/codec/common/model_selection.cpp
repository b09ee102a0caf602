#include "server/codec/common/model_selection.h"

namespace tsserve::server {
namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) {
    if (!list.empty()) list += ", ";
    list += '"' + name + '"';
  }
  return list;
}

}  // namespace

Status check_model_name(const std::string& requested, const std::vector<std::string>& loaded,
                        std::size_t* index, const char* field) {
  const std::string name = field;
  if (requested.empty()) {
    if (loaded.size() == 1) {
      if (index != nullptr) *index = 0;
      return Status();
    }
    if (loaded.empty()) return {StatusCode::kNotFound, name + ": no model is loaded"};
    return {StatusCode::kInvalidArgument, name + ": empty, but " + std::to_string(loaded.size()) +
                                              " models are loaded; name one of " +
                                              quoted_list(loaded)};
  }
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    if (loaded[i] == requested) {
      if (index != nullptr) *index = i;
      return Status();
    }
  }
  return {StatusCode::kNotFound, name + ": no loaded model is named \"" + requested + "\"" +
                                     (loaded.empty() ? std::string("; no model is loaded")
                                                     : "; loaded: " + quoted_list(loaded))};
}

}  // namespace tsserve::server
