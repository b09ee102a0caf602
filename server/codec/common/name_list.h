#pragma once
// The names a request gives its variables, wherever its protocol keeps them (tsserve.v1's
// and the Open Inference Protocol's repeated fields, the JSON decoder's vector), read in
// place, so that the shared rules (series_rows.h, scaler_matching.h, sample_request.h)
// take every protocol's names without a copy and without a protocol's header.

#include <cstdint>
#include <string>

namespace tsserve::server {

class NameList {
 public:
  NameList() = default;
  // A view of `names` (any container of std::string with size() and operator[]), valid
  // while it lives and does not change.
  template <typename Names>
  NameList(const Names& names)  // NOLINT(google-explicit-constructor): a view, as string_view
      : names_(&names), size_(static_cast<int64_t>(names.size())), at_(&name_at<Names>) {}

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // REQUIRES: 0 <= i < size().
  const std::string& operator[](int64_t i) const { return at_(names_, i); }

 private:
  template <typename Names>
  static const std::string& name_at(const void* names, int64_t i) {
    return (*static_cast<const Names*>(names))[static_cast<typename Names::size_type>(i)];
  }

  const void* names_ = nullptr;
  int64_t size_ = 0;
  const std::string& (*at_)(const void*, int64_t) = nullptr;
};

}  // namespace tsserve::server
