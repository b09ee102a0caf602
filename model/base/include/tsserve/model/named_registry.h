#pragma once
// A table of entries by name, filled before main by static registrars (each model family's
// folder registers its rules, its loading and its served definition) and read-only after.
// Each table is a function-local static of its owner (constructed on first use), so a
// registrar in any translation unit may run first.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tsserve::model {

template <typename Entry>
class NamedRegistry {
 public:
  // Adds `entry` under `name`; a second entry of one name is a std::logic_error naming
  // `what` (a build that links one family folder twice).
  void add(std::string name, Entry entry, const char* what) {
    if (find(name) != nullptr) {
      throw std::logic_error(std::string(what) + " \"" + name + "\" is registered twice");
    }
    entries_.emplace_back(std::move(name), std::make_unique<const Entry>(std::move(entry)));
  }

  // The entry of `name`, or null.
  const Entry* find(const std::string& name) const {
    for (const auto& [known, entry] : entries_) {
      if (known == name) return entry.get();
    }
    return nullptr;
  }

  // Every entry, by name: a stable order for messages whatever order registrars ran in.
  std::vector<const Entry*> by_name() const {
    std::vector<const std::pair<std::string, std::unique_ptr<const Entry>>*> sorted;
    for (const auto& named : entries_) sorted.push_back(&named);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    std::vector<const Entry*> entries;
    for (const auto* named : sorted) entries.push_back(named->second.get());
    return entries;
  }

 private:
  std::vector<std::pair<std::string, std::unique_ptr<const Entry>>> entries_;
};

}  // namespace tsserve::model
