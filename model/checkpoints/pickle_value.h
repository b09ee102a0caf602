#pragma once
// The values the state_dict unpickler builds: the subset of Python objects that
// torch.save writes for a state_dict (None, bool, int, float, str, tuple, list, dict,
// references to allowed globals, tensor storages and tensors).
//
// Every object of one unpickling lives in one PickleArena and containers point at their
// elements. Shared references (pickle memo gets) therefore alias as they do in Python,
// and a pickle that builds a cycle (a list appended to itself) cannot leak or recurse
// on destruction: the arena frees everything at once.

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tsserve::model::detail {

enum class PickleKind {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kGlobal,  // an allowed module-level name, e.g. "torch._utils._rebuild_tensor_v2"
  kTuple,
  kList,
  kDict,     // dict or collections.OrderedDict (is_ordered_dict tells which)
  kStorage,  // a tensor storage loaded through a persistent id
  kTensor,   // a view of a storage, as _rebuild_tensor_v2 describes it (not yet copied)
};

struct PickleObject;

// What _rebuild_tensor_v2(storage, offset, size, stride, ...) asked for. The geometry is
// checked against the storage only when the tensor is copied out (copy_tensor_view), so
// the message can name the state_dict entry.
struct TensorView {
  const PickleObject* storage = nullptr;  // kind kStorage
  int64_t offset = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

struct StorageData {
  std::string key;    // the record is data/<key>
  std::string type;   // "FloatStorage", ...
  at::Tensor values;  // 1-D, contiguous, the storage's dtype and element count
};

struct PickleObject {
  PickleKind kind = PickleKind::kNone;
  bool boolean = false;                                          // kBool
  bool is_ordered_dict = false;                                  // kDict
  int64_t integer = 0;                                           // kInt
  double real = 0.0;                                             // kFloat
  std::string text;                                              // kString; kGlobal: "module.name"
  std::vector<PickleObject*> items;                              // kTuple, kList
  std::vector<std::pair<PickleObject*, PickleObject*>> entries;  // kDict, insertion order
  std::unordered_map<std::string, size_t> string_key_index;      // kDict: str key -> entry
  std::unique_ptr<TensorView> tensor;                            // kTensor
  std::unique_ptr<StorageData> storage;                          // kStorage
};

// Owns every object of one unpickling. Objects never move once made.
class PickleArena {
 public:
  // Bounds the work a hostile pickle can cause; a state_dict needs about ten objects per
  // tensor, so this admits hundreds of thousands of tensors.
  static constexpr size_t kMaxObjects = size_t{1} << 22;

  // Throws CheckpointFormatError past kMaxObjects.
  PickleObject* make(PickleKind kind);

 private:
  std::deque<PickleObject> objects_;
};

// Python-like dict assignment: a str key already present keeps its position and takes
// the new value; other keys are appended (a state_dict only has str keys).
void dict_set(PickleObject& dict, PickleObject* key, PickleObject* value);

// A short description for error messages, with its article: "a str 'abc'", "a tuple of
// 2 items", "an OrderedDict with 3 entries", "an int 7", ... Never recurses.
std::string describe(const PickleObject& object);

// "'a', 'b', 'c'" for at most `limit` str keys of a dict (then ", ... (N in all)").
std::string list_string_keys(const PickleObject& dict, size_t limit);

}  // namespace tsserve::model::detail
