#include "pickle_value.h"

#include "checkpoint_format_error.h"

namespace tsserve::model::detail {

PickleObject* PickleArena::make(PickleKind kind) {
  if (objects_.size() >= kMaxObjects) {
    throw CheckpointFormatError("the pickle creates more than " + std::to_string(kMaxObjects) +
                                " objects, far more than a state_dict needs");
  }
  PickleObject& object = objects_.emplace_back();
  object.kind = kind;
  return &object;
}

void dict_set(PickleObject& dict, PickleObject* key, PickleObject* value) {
  if (key->kind == PickleKind::kString) {
    auto [it, inserted] = dict.string_key_index.try_emplace(key->text, dict.entries.size());
    if (!inserted) {
      dict.entries[it->second].second = value;
      return;
    }
  }
  dict.entries.emplace_back(key, value);
}

namespace {

std::string count_of(size_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

std::string describe(const PickleObject& object) {
  switch (object.kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return object.boolean ? "a bool True" : "a bool False";
    case PickleKind::kInt:
      return "an int " + std::to_string(object.integer);
    case PickleKind::kFloat:
      return "a float";
    case PickleKind::kString:
      return "a str " + quote(object.text);
    case PickleKind::kGlobal:
      return "a reference to " + quote(object.text);
    case PickleKind::kTuple:
      return "a tuple of " + count_of(object.items.size(), "item", "items");
    case PickleKind::kList:
      return "a list of " + count_of(object.items.size(), "item", "items");
    case PickleKind::kDict:
      return std::string(object.is_ordered_dict ? "an OrderedDict" : "a dict") + " with " +
             count_of(object.entries.size(), "entry", "entries");
    case PickleKind::kStorage:
      return "a tensor storage";
    case PickleKind::kTensor:
      return "a tensor";
  }
  return "an object";
}

std::string list_string_keys(const PickleObject& dict, size_t limit) {
  std::string out;
  size_t shown = 0;
  for (const auto& [key, value] : dict.entries) {
    if (shown == limit) {
      out += ", ... (" + std::to_string(dict.entries.size()) + " in all)";
      break;
    }
    if (shown > 0) out += ", ";
    out += key->kind == PickleKind::kString ? quote(key->text) : describe(*key);
    ++shown;
  }
  return out;
}

}  // namespace tsserve::model::detail
