// read_torch_state_dict: a torch.save zip archive (PyTorch >= 1.6) holding a state_dict.
//
// The archive has one top folder (PyTorchStreamReader strips it) with the records
// data.pkl (the pickled dict), data/<key> (one per tensor storage, raw little-endian
// bytes) and version; PyTorch >= 2.1 adds byteorder. The zip layer is LibTorch's
// PyTorchStreamReader, after ZipDirectory has checked the declared record sizes; we
// verify each record's CRC-32 ourselves (LibTorch's miniz does not). The pickle is read
// by our own restricted unpickler (state_dict_unpickler.h).
//
// Top-level object: a dict or OrderedDict of str -> tensor. A nested dict such as a
// training checkpoint {"model": ..., "optimizer": ..., "epoch": ...} is refused with
// its top-level keys, not unwrapped: picking "model" or "state_dict" automatically
// would silently serve the wrong weights when a checkpoint also holds, say, EMA
// weights, so the user chooses and re-saves.

#include <ATen/ops/empty.h>
#include <c10/core/ScalarType.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <caffe2/serialize/versions.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "binary_file.h"
#include "checkpoint_format_error.h"
#include "pickle_value.h"
#include "state_dict_unpickler.h"
#include "tensor_view_copy.h"
#include "torch_storage_type.h"
#include "tsserve/model/checkpoint_file.h"
#include "zip_directory.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checkpoint readers copy little-endian tensor data as is"
#endif

namespace tsserve::model {
namespace detail {
namespace {

constexpr size_t kMaxKeysListed = 12;

// Lets PyTorchStreamReader read through the BinaryFile the size guard checked.
class BinaryFileAdapter : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BinaryFileAdapter(const BinaryFile& file) : file_(file) {}
  size_t size() const override { return static_cast<size_t>(file_.size()); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    return file_.read_up_to(pos, buf, n);
  }

 private:
  const BinaryFile& file_;
};

bool starts_with(const BinaryFile& file, const char* magic, size_t length) {
  if (file.size() < length) return false;
  std::string head(length, '\0');
  file.read_at(0, head.data(), length, "the file header");
  return std::memcmp(head.data(), magic, length) == 0;
}

class TorchZipCheckpoint {
 public:
  explicit TorchZipCheckpoint(const BinaryFile& file) : file_(file) {}

  StateDict read() {
    if (file_.size() == 0) throw CheckpointFormatError("the file is empty");
    if (starts_with(file_, "\x80\x02\x8a", 3)) {
      throw CheckpointFormatError(
          "this is the legacy (non-zip) torch.save format of PyTorch < 1.6 or "
          "_use_new_zipfile_serialization=False, which is not supported; re-save it with "
          "torch.save(torch.load(path), path) in a current PyTorch");
    }
    directory_.emplace(file_);
    check_stream_reader_preconditions();
    open_archive();
    if (has_record("constants.pkl")) {
      throw CheckpointFormatError(
          "this is a TorchScript archive (torch.jit.save), not a state_dict; save the "
          "weights with torch.save(model.state_dict(), path)");
    }
    if (!has_record("data.pkl")) {
      throw CheckpointFormatError("the zip archive has no data.pkl record; not a torch.save file");
    }
    check_byte_order();
    const auto [pickle, pickle_size] = get_record("data.pkl");
    PickleObject* top =
        unpickle_state_dict("data.pkl", static_cast<const uint8_t*>(pickle.get()), pickle_size,
                            arena_, [this](const PickleObject& id) { return load_storage(id); });
    return to_state_dict(*top);
  }

 private:
  // PyTorchStreamReader's constructor makes these checks too, but when it throws after
  // opening the zip it leaks miniz's state (LibTorch 1.13), so they are made here first.
  void check_stream_reader_preconditions() {
    if (directory_->entry_count() == 0) throw CheckpointFormatError("the zip archive is empty");
    if (directory_->top_folder().empty()) {
      throw CheckpointFormatError(
          "not a torch.save archive: its first entry is not inside a top folder");
    }
    const std::string version =
        directory_->find(".data/version") != nullptr ? ".data/version" : "version";
    if (directory_->find(version) == nullptr) {
      throw CheckpointFormatError("the zip archive has no version record; not a torch.save file");
    }
    const std::string text = directory_->read_stored_record(file_, version, 64);
    size_t p = text.find_first_not_of(" \t\n\v\f\r");
    uint64_t number = 0;
    size_t digits = 0;
    for (; p < text.size() && text[p] >= '0' && text[p] <= '9' && digits < 18; ++p, ++digits) {
      number = number * 10 + static_cast<uint64_t>(text[p] - '0');
    }
    if (digits == 0 || number < caffe2::serialize::kMinSupportedFileFormatVersion ||
        number > caffe2::serialize::kMaxSupportedFileFormatVersion) {
      throw CheckpointFormatError(
          "record " + quote(version) + " holds " + quote(text) +
          ", not a file format version LibTorch 1.13 reads (" +
          std::to_string(caffe2::serialize::kMinSupportedFileFormatVersion) + " to " +
          std::to_string(caffe2::serialize::kMaxSupportedFileFormatVersion) + ")");
    }
  }

  void open_archive() {
    try {
      reader_ = std::make_unique<caffe2::serialize::PyTorchStreamReader>(
          std::make_shared<BinaryFileAdapter>(file_));
    } catch (const c10::Error& e) {
      throw CheckpointFormatError("truncated or not a zip archive (" + first_line(e.msg()) + ")");
    }
  }

  static std::string first_line(const std::string& text) {
    return printable(text.substr(0, text.find('\n')));
  }

  bool has_record(const std::string& name) {
    try {
      return reader_->hasRecord(name);
    } catch (const c10::Error& e) {
      throw CheckpointFormatError("cannot look up record " + quote(name) + " (" +
                                  first_line(e.msg()) + ")");
    }
  }

  std::tuple<at::DataPtr, size_t> get_record(const std::string& name) {
    directory_->extractable(name);
    std::tuple<at::DataPtr, size_t> record;
    try {
      record = reader_->getRecord(name);
    } catch (const c10::Error& e) {
      throw CheckpointFormatError("cannot read record " + quote(name) + " (" + first_line(e.msg()) +
                                  ")");
    }
    const uint32_t expected = directory_->expected_crc32(name);
    const auto& [data, size] = record;
    if (expected != 0 && crc32(data.get(), size) != expected) {
      throw CheckpointFormatError("record " + quote(name) +
                                  " is corrupt: its bytes do not match the CRC-32 in the zip "
                                  "directory");
    }
    return record;
  }

  // PyTorch >= 2.1 records the byte order of the tensor data; older files are little-endian.
  void check_byte_order() {
    if (!has_record("byteorder")) return;
    const auto [data, size] = get_record("byteorder");
    const std::string order(static_cast<const char*>(data.get()), size);
    if (order != "little") {
      throw CheckpointFormatError("the tensor data is stored with byteorder " + quote(order) +
                                  "; only 'little' is supported");
    }
  }

  // persistent id ('storage', storage_type, key, location, numel) -> the storage, read
  // from record data/<key> once however many tensors share it. The location ("cpu",
  // "cuda:0") is ignored: every tensor is loaded to the CPU.
  PickleObject* load_storage(const PickleObject& id) {
    const auto& items = id.items;
    if (id.kind != PickleKind::kTuple || items.size() != 5 ||
        items[0]->kind != PickleKind::kString || items[0]->text != "storage" ||
        items[1]->kind != PickleKind::kGlobal || items[2]->kind != PickleKind::kString ||
        items[3]->kind != PickleKind::kString || items[4]->kind != PickleKind::kInt) {
      throw CheckpointFormatError("data.pkl: a persistent id is " + describe(id) +
                                  ", not ('storage', storage_type, key, location, numel)");
    }
    const std::string& type_name = items[1]->text;
    const std::string& key = items[2]->text;
    const int64_t numel = items[4]->integer;
    const std::optional<at::ScalarType> type = storage_scalar_type(type_name);
    if (!type) {
      throw CheckpointFormatError("data.pkl: storage " + quote(key) + " has type " +
                                  quote(type_name) + "; supported: " + supported_storage_types());
    }
    const std::string type_short = type_name.substr(type_name.find('.') + 1);
    if (numel < 0) {
      throw CheckpointFormatError("data.pkl: storage " + quote(key) + " has a negative size");
    }
    if (auto it = storages_.find(key); it != storages_.end()) {
      const StorageData& known = *it->second->storage;
      if (known.values.scalar_type() != *type || known.values.numel() != numel) {
        throw CheckpointFormatError("data.pkl: storage " + quote(key) + " is referenced both as " +
                                    known.type + " of " + std::to_string(known.values.numel()) +
                                    " elements and as " + type_short + " of " +
                                    std::to_string(numel) + " elements");
      }
      return it->second;
    }

    const std::string record = "data/" + key;
    if (!has_record(record)) {
      throw CheckpointFormatError("record " + quote(record) + " (the " + type_short +
                                  " of a tensor) is missing from the archive");
    }
    const auto [data, size] = get_record(record);
    const uint64_t item_size = c10::elementSize(*type);
    const uint64_t expected = static_cast<uint64_t>(numel) * item_size;
    if (static_cast<uint64_t>(numel) > (uint64_t{1} << 60) / item_size || size != expected) {
      throw CheckpointFormatError("record " + quote(record) + " holds " + std::to_string(size) +
                                  " bytes but its " + type_short + " of " + std::to_string(numel) +
                                  " elements x " + std::to_string(item_size) + " bytes needs " +
                                  std::to_string(expected) + " bytes");
    }
    const auto* bytes = static_cast<const uint8_t*>(data.get());
    if (*type == at::kBool) {
      for (size_t i = 0; i < size; ++i) {
        if (bytes[i] > 1) {
          throw CheckpointFormatError("record " + quote(record) + " (a BoolStorage) holds byte " +
                                      std::to_string(bytes[i]) + " at element " +
                                      std::to_string(i) + "; a bool is 0 or 1");
        }
      }
    }
    PickleObject* storage = arena_.make(PickleKind::kStorage);
    storage->storage = std::make_unique<StorageData>();
    storage->storage->key = key;
    storage->storage->type = type_short;
    storage->storage->values = at::empty({numel}, at::TensorOptions().dtype(*type));
    if (size > 0) std::memcpy(storage->storage->values.data_ptr(), bytes, size);
    storage_bytes_ += size;
    storages_.emplace(key, storage);
    return storage;
  }

  StateDict to_state_dict(const PickleObject& top) {
    if (top.kind != PickleKind::kDict) {
      throw CheckpointFormatError(
          "data.pkl holds " + describe(top) +
          ", not a state_dict (a dict of name -> tensor, as torch.save(model.state_dict(), "
          "path) writes)");
    }
    for (const auto& [key, value] : top.entries) {
      if (key->kind != PickleKind::kString) {
        throw CheckpointFormatError("the state_dict has a key that is " + describe(*key) +
                                    "; state_dict keys are str");
      }
      if (value->kind != PickleKind::kTensor) reject_non_tensor_entry(top, *key, *value);
    }
    TensorViewCopier copier(storage_bytes_);
    StateDict state_dict;
    state_dict.reserve(top.entries.size());
    for (const auto& [key, value] : top.entries) {
      state_dict.emplace_back(key->text, copier.copy(key->text, *value->tensor));
    }
    return state_dict;
  }

  [[noreturn]] static void reject_non_tensor_entry(const PickleObject& top, const PickleObject& key,
                                                   const PickleObject& value) {
    std::string message = "expected a state_dict (a dict of name -> tensor) but entry " +
                          quote(key.text) + " is " + describe(value) +
                          ", not a tensor; the top-level keys are " +
                          list_string_keys(top, kMaxKeysListed) + ".";
    for (const auto& [candidate_key, candidate] : top.entries) {
      if (candidate_key->kind == PickleKind::kString && is_tensor_dict(*candidate)) {
        message +=
            " This looks like a training checkpoint: save the model's weights on "
            "their own, e.g. torch.save(checkpoint[" +
            quote(candidate_key->text) + "], path)";
        break;
      }
    }
    throw CheckpointFormatError(message);
  }

  static bool is_tensor_dict(const PickleObject& object) {
    if (object.kind != PickleKind::kDict || object.entries.empty()) return false;
    for (const auto& [key, value] : object.entries) {
      if (key->kind != PickleKind::kString || value->kind != PickleKind::kTensor) return false;
    }
    return true;
  }

  const BinaryFile& file_;
  std::optional<ZipDirectory> directory_;
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader_;
  PickleArena arena_;
  std::unordered_map<std::string, PickleObject*> storages_;
  uint64_t storage_bytes_ = 0;
};

}  // namespace
}  // namespace detail

StateDict read_torch_state_dict(const std::string& path) {
  try {
    const detail::BinaryFile file(path);
    return detail::TorchZipCheckpoint(file).read();
  } catch (...) {
    detail::rethrow_as_model_error(path);
  }
}

}  // namespace tsserve::model
